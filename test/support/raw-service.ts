import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawService {
  url: string;
  /** Request bodies, in order. */
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * A loopback service that answers a tender search with fixed JSON text, page
 * after page (cursors "p1", "p2", ...), so a test controls every byte of the
 * results: literals JSON.parse would round, keys such as `__proto__`.
 * `pages` holds each page's results array as JSON text.
 */
export async function startRawService(pages: readonly string[]): Promise<RawService> {
  const requests: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const request = JSON.parse(body || '{}') as Record<string, unknown>;
      requests.push(request);
      const n = typeof request.cursor === 'string' ? Number(request.cursor.slice(1)) : 0;
      const next = n + 1 < pages.length ? `"p${n + 1}"` : 'null';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"tenders":${pages[n] ?? '[]'},"page":{"nextCursor":${next},"total":null}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
