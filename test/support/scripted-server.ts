import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How to answer one request: the test decides, down to cutting the connection. */
export type Step = (res: ServerResponse, req: IncomingMessage) => void;

export interface ScriptedServer {
  url: string;
  /** Requests seen, in order, with their JSON bodies. */
  requests: unknown[];
  close(): Promise<void>;
}

/**
 * An HTTP server on loopback that answers request n with `script(n)` (1-based):
 * for what a MockAgent cannot do, such as a body cut or trickling midway.
 */
export async function startScripted(script: (n: number) => Step): Promise<ScriptedServer> {
  const requests: unknown[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      requests.push(JSON.parse(raw || 'null'));
      script(requests.length)(res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (res) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };

/** The headers and half the body, then the connection closes. */
export const cut =
  (body: unknown): Step =>
  (res) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.write(text.slice(0, text.length >> 1), () => res.destroy());
  };

/** The headers at once, then the body one byte every `everyMs`: never a gap long enough for a body timeout. */
export const trickle =
  (body: unknown, everyMs: number): Step =>
  (res) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed || i >= text.length) return clearInterval(timer);
      res.write(text[i++]);
      if (i === text.length) res.end();
    }, everyMs);
    res.on('close', () => clearInterval(timer));
  };

/** No answer at all until the connection is closed. */
export const silence: Step = () => {};
