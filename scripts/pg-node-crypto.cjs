// pg's lib/crypto/utils.js as the bundle has it (scripts/build.js, pgOnNode): the same functions, made
// with Node's crypto, which is loaded when a login first needs it. pg's own makes them with Web Crypto,
// which it loads with node:crypto as pg loads: 4-8 ms of every PostgreSQL command's start, and a SCRAM
// login's key took 4-6 ms through Web Crypto where pbkdf2Sync takes 1.6.
'use strict';

const crypto = () => require('node:crypto');

const md5 = async (text) => crypto().createHash('md5').update(text, 'utf-8').digest('hex');

module.exports = {
  // See AuthenticationMD5Password at https://www.postgresql.org/docs/current/static/protocol-flow.html
  async postgresMd5PasswordHash(user, password, salt) {
    const inner = await md5(password + user);
    const outer = await md5(Buffer.concat([Buffer.from(inner), salt]));
    return `md5${outer}`;
  },
  randomBytes: (length) => crypto().randomBytes(length),
  deriveKey: async (password, salt, iterations) => crypto().pbkdf2Sync(password, salt, iterations, 32, 'sha256'),
  sha256: async (data) => crypto().createHash('sha256').update(Buffer.from(data)).digest(),
  // Web Crypto's names (SHA-256) as Node's (sha256).
  hashByName: async (hashName, data) => crypto().createHash(hashName.replace('-', '').toLowerCase()).update(Buffer.from(data)).digest(),
  hmacSha256: async (key, message) => crypto().createHmac('sha256', Buffer.from(key)).update(message).digest(),
  md5,
};
