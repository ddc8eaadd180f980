import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { describeTlsError } from '../../src/api/errors.js';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('TLS failures in one line', () => {
  it('https:// to a plain-HTTP port says so and names the http:// URL to try', async () => {
    const client = new ApiClient({ baseUrl: new URL(`https://127.0.0.1:${port}`), timeoutMs: 5000, retries: 0, maxWaitMs: 0, env: {} });
    const failure = await client.post('/api/v1/tenders/search', '{}').catch((err: Error) => err);
    await client.close(true);
    expect((failure as Error).message).toBe(
      `cannot get POST /api/v1/tenders/search from https://127.0.0.1:${port}: TLS handshake failed: is the service plain http? try http://127.0.0.1:${port}`,
    );
  });

  it('certificate problems in words, other TLS errors by code, anything else untouched', () => {
    const base = new URL('https://tenders.example.org/prefix');
    expect(describeTlsError({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' }, base)).toBe(
      "TLS handshake failed: the service's certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)",
    );
    expect(describeTlsError({ code: 'ERR_TLS_CERT_ALTNAME_INVALID', message: "Hostname/IP does not match certificate's altnames" }, base)).toMatch(/is for another host name/);
    expect(describeTlsError({ code: 'ERR_SSL_WRONG_VERSION_NUMBER', message: '...' }, base)).toBe(
      'TLS handshake failed: is the service plain http? try http://tenders.example.org/prefix',
    );
    expect(describeTlsError({ code: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', message: '...' }, base)).toBe('TLS handshake failed (ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE)');
    expect(describeTlsError({ code: 'ECONNRESET', message: 'socket hang up' }, base)).toBeUndefined();
  });
});
