import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { clientConfig, failure } from '../../src/store/postgres-connect.js';
import { testDir } from '../support/test-context.js';

describe('clientConfig', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads sslmode from the URL as from PGSSLMODE, the URL first, and prints no warning of pg for it', () => {
    const warned = vi.spyOn(process, 'emitWarning');
    const ssl = (url: string, PGSSLMODE?: string) => clientConfig(url, { PGSSLMODE }).ssl;
    for (const mode of ['prefer', 'require', 'verify-ca', 'verify-full']) expect(ssl(`postgres://u@h/db?sslmode=${mode}`), mode).toBe(true);
    expect(ssl('postgres://u@h/db?sslmode=disable', 'require')).toBe(false);
    expect(ssl('postgres://u@h/db?sslmode=no-verify')).toEqual({ rejectUnauthorized: false });
    expect(ssl('postgres://u@h/db', 'require')).toBe(true);
    expect(ssl('postgres://u@h/db')).toBe(false);
    expect(warned).not.toHaveBeenCalled();
  });

  it('refuses an sslmode it does not know, as libpq does, rather than connecting in plain text', () => {
    for (const mode of ['REQUIRE', 'requre', 'true', '1', 'verify_full']) {
      expect(() => clientConfig(`postgres://u@h/db?sslmode=${mode}`, {}), mode).toThrow(UsageError);
      expect(() => clientConfig('postgres://u@h/db', { PGSSLMODE: mode }), mode).toThrow(`PGSSLMODE=${mode} is not an SSL mode`);
    }
    expect(clientConfig('postgres://u@h/db?sslmode=allow', {}).ssl).toBe(false);
  });

  it('keeps the certificates the URL names beside its sslmode', () => {
    const ca = join(testDir(), 'ca.pem');
    writeFileSync(ca, 'CERTIFICATE');
    expect(clientConfig(`postgres://u@h/db?sslmode=no-verify&sslrootcert=${ca}`, {}).ssl).toEqual({ ca: 'CERTIFICATE', rejectUnauthorized: false });
    expect(clientConfig(`postgres://u@h/db?sslmode=require&sslrootcert=${ca}`, {}).ssl).toEqual({ ca: 'CERTIFICATE' });
    expect(clientConfig(`postgres://u@h/db?sslmode=disable&sslrootcert=${ca}`, {}).ssl).toBe(false);
  });
});

describe('failure', () => {
  const target = { connectionString: 'postgres://u:pw@h/db', location: 'postgres://u@h/db', schema: undefined };
  const failed = (err: object) => failure(Object.assign(new Error('x'), err), target, (m) => m).message;

  it('says the connection was lost when the server went away mid-run, in one line', () => {
    expect(failed({ message: 'Client has encountered a connection error and is not queryable' })).toBe(
      'postgres://u@h/db: lost the connection to the PostgreSQL server (stopped, restarted, or the connection ended): Client has encountered a connection error and is not queryable',
    );
    expect(failed({ message: 'Connection terminated unexpectedly' })).toMatch(/^postgres:\/\/u@h\/db: lost the connection to the PostgreSQL server/);
    expect(failed({ code: '57P01', message: 'terminating connection due to administrator command' })).toMatch(/lost the connection/);
    expect(failed({ code: '23505', message: 'duplicate key' })).toBe('postgres://u@h/db: duplicate key');
  });
});
