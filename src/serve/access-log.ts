/** One access-log line: method, path, status, bytes of the body sent, milliseconds; a path's unprintable characters %-escaped (no forged lines). */
export function accessLine(method: string, path: string, status: number, bytes: number, ms: number): string {
  const shown = path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  return `${method} ${shown} ${status} ${bytes} ${ms.toFixed(1)}ms`;
}
