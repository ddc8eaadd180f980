/** How the access log writes a request: today's line, or one JSON object per line (`--log-format json`). */
export type LogFormat = 'text' | 'json';

/** One access-log line: method, path, status, bytes of the body sent, milliseconds; a path's unprintable characters %-escaped (no forged lines). */
export function accessLine(method: string, path: string, status: number, bytes: number, ms: number): string {
  const shown = path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  return `${method} ${shown} ${status} ${bytes} ${ms.toFixed(1)}ms`;
}

/**
 * One JSON access-log record: {time, method, path, status, bytes, ms}. The
 * path is without its query string (a subscription's `key=` is never logged);
 * JSON.stringify escapes what could forge a line.
 */
export function accessJson(method: string, path: string, status: number, bytes: number, ms: number): string {
  return JSON.stringify({ time: new Date().toISOString(), method, path, status, bytes, ms: Math.round(ms * 10) / 10 });
}

/** The access-log writer of a format. */
export function accessFormat(format: LogFormat = 'text'): typeof accessLine {
  return format === 'json' ? accessJson : accessLine;
}
