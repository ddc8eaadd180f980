import { UsageError } from '../errors.js';

export const DEFAULT_LISTEN = '127.0.0.1:8787';

export interface ListenAddress {
  host: string;
  port: number;
  /** 127.0.0.0/8, ::1 or localhost: only this machine can connect. */
  loopback: boolean;
}

/** HOST:PORT ([::1]:PORT for IPv6); port 0 picks a free one. */
export function parseListen(text: string): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const port = Number(m?.[3]);
  if (!m || port > 65535) throw new UsageError(`--listen: '${text}' is not HOST:PORT (127.0.0.1:8787, [::1]:8787, 0.0.0.0:0)`);
  const host = (m[1] ?? m[2])!;
  const loopback = host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
  return { host, port, loopback };
}
