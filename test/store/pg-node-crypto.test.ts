import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

type Utils = {
  postgresMd5PasswordHash(user: string, password: string, salt: Buffer): Promise<string>;
  randomBytes(length: number): Buffer;
  deriveKey(password: string, salt: Buffer, iterations: number): Promise<ArrayBuffer | Buffer>;
  sha256(data: ArrayBuffer | Buffer): Promise<ArrayBuffer | Buffer>;
  hashByName(name: string, data: Buffer): Promise<ArrayBuffer | Buffer>;
  hmacSha256(key: ArrayBuffer | Buffer, message: string): Promise<ArrayBuffer | Buffer>;
  md5(text: string | Buffer): Promise<string>;
};

/** pg's own (Web Crypto), and what the bundle has instead (scripts/build.js, pgOnNode). */
const theirs = require('pg/lib/crypto/utils.js') as Utils;
const ours = require('../../scripts/pg-node-crypto.cjs') as Utils;
const bytes = (b: ArrayBuffer | Buffer) => Buffer.from(b as ArrayBuffer).toString('hex');

describe("pg's login functions made with Node's crypto", () => {
  it('give what pg\'s own give, for a SCRAM-SHA-256 login and an MD5 one', async () => {
    const salt = Buffer.from('c2FsdHlzYWx0c2FsdHk=', 'base64');
    const key = await ours.deriveKey('pâssword', salt, 4096);
    expect(bytes(key)).toBe(bytes(await theirs.deriveKey('pâssword', salt, 4096)));
    const clientKey = await ours.hmacSha256(key, 'Client Key');
    expect(bytes(clientKey)).toBe(bytes(await theirs.hmacSha256(key, 'Client Key')));
    expect(bytes(await ours.sha256(clientKey))).toBe(bytes(await theirs.sha256(clientKey)));
    for (const name of ['SHA-256', 'SHA-384', 'SHA-512']) expect(bytes(await ours.hashByName(name, salt)), name).toBe(bytes(await theirs.hashByName(name, salt)));
    expect(await ours.md5('text')).toBe(await theirs.md5('text'));
    expect(await ours.postgresMd5PasswordHash('user', 'secret', Buffer.from([1, 2, 3, 4]))).toBe(await theirs.postgresMd5PasswordHash('user', 'secret', Buffer.from([1, 2, 3, 4])));
    const nonce = ours.randomBytes(18);
    expect(nonce).toHaveLength(18);
    expect(nonce.equals(ours.randomBytes(18))).toBe(false);
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
  });
});
