import type { Duplex } from 'node:stream';

/** What a request that never became one is told: a JSON body, as every other answer. */
function answerOf(err: NodeJS.ErrnoException): [number, string, string] {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout', 'the request did not arrive in time: headers within the headers timeout, the whole request within the request timeout'];
  if (err.code === 'HPE_HEADER_OVERFLOW') return [431, 'Request Header Fields Too Large', 'the request headers are too large'];
  return [400, 'Bad Request', 'the request is not HTTP this server can read'];
}

/**
 * The server's 'clientError': a request too slow (408) or unreadable (400,
 * 431) is answered `{"message"}` with the server's headers, then its
 * connection closed. Node's own answer has no body; a socket already written
 * to (or gone) is only closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, headers: Record<string, string>): void {
  const open = socket as Duplex & { bytesWritten?: number };
  if (open.writable && (open.bytesWritten ?? 0) === 0) {
    const [status, reason, message] = answerOf(err);
    const body = JSON.stringify({ message });
    const lines = Object.entries({ ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
    open.end(`HTTP/1.1 ${status} ${reason}\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
  }
  open.destroy();
}
