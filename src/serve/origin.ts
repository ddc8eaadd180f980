/**
 * The scheme and host a client reached this server at, for the absolute URLs
 * it is handed (subscriptions): the Host header, and https when a reverse proxy
 * says so in X-Forwarded-Proto (the only proxy header read: it changes no
 * answer but the links the same client is given). Undefined without a Host
 * that is a host name or address with an optional port.
 */
export function requestOrigin(host: string | undefined, forwardedProto: string | string[] | undefined): string | undefined {
  if (host === undefined || !/^[\w.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:.]+\](:\d{1,5})?$/.test(host)) return undefined;
  const proto = typeof forwardedProto === 'string' && forwardedProto.split(',')[0]!.trim().toLowerCase() === 'https' ? 'https' : 'http';
  return `${proto}://${host}`;
}
