import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientConfig } from '../../src/store/postgres-connect.js';
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

  it('keeps the certificates the URL names beside its sslmode', () => {
    const ca = join(testDir(), 'ca.pem');
    writeFileSync(ca, 'CERTIFICATE');
    expect(clientConfig(`postgres://u@h/db?sslmode=no-verify&sslrootcert=${ca}`, {}).ssl).toEqual({ ca: 'CERTIFICATE', rejectUnauthorized: false });
    expect(clientConfig(`postgres://u@h/db?sslmode=require&sslrootcert=${ca}`, {}).ssl).toEqual({ ca: 'CERTIFICATE' });
    expect(clientConfig(`postgres://u@h/db?sslmode=disable&sslrootcert=${ca}`, {}).ssl).toBe(false);
  });
});
