import { RunError, UsageError } from '../errors.js';
import type { Env } from '../io.js';

/** A proxy (the proxy's own refusal, or the service behind it) stopped the request. */
export class ProxyError extends RunError {
  override name = 'ProxyError';
}

export interface EnvProxy {
  /** The variable it came from, e.g. `HTTPS_PROXY`. */
  name: string;
  url: string;
}

/**
 * The proxy undici's EnvHttpProxyAgent sends a request for this protocol to
 * (NO_PROXY not weighed): `http_proxy`/`HTTP_PROXY` for http:, and for https:
 * `https_proxy`/`HTTPS_PROXY`, else the http one. Same precedence as undici 7.
 */
export function proxyFromEnv(protocol: string, env: Env): EnvProxy | undefined {
  const pick = (lower: string, upper: string): EnvProxy | undefined => {
    const name = env[lower] !== undefined ? lower : upper;
    const value = env[name];
    return value ? { name, url: proxyUrl(name, value) } : undefined;
  };
  const http = pick('http_proxy', 'HTTP_PROXY');
  return protocol === 'https:' ? (pick('https_proxy', 'HTTPS_PROXY') ?? http) : http;
}

/**
 * A proxy variable's URL: `host:port` without a scheme is `http://host:port`,
 * as curl reads it; what is not a URL is a usage error naming the variable
 * (undici would say only "Invalid URL").
 */
function proxyUrl(name: string, value: string): string {
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  if (!URL.canParse(url)) throw new UsageError(`${name} is not a proxy URL (${redactProxy(url)}): set it as http://host:port`);
  return url;
}

/** undici's EnvHttpProxyAgent settings from an environment ('' where unset: undici then reads no variable itself). */
export function proxySettings(env: Env): { httpProxy: string; httpsProxy: string; noProxy: string } {
  return {
    httpProxy: proxyFromEnv('http:', env)?.url ?? '',
    httpsProxy: proxyFromEnv('https:', env)?.url ?? '',
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  };
}

/** A proxy URL fit to print: scheme, host and port, never a user name or password. */
export function redactProxy(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return url.replace(/\/\/[^/]*@/, '//');
  }
}

function hasCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    return /\/\/[^/]*@/.test(url);
  }
}

/**
 * The status a proxy refused a request with, read from undici's errors: a
 * forwarded request answered 407, or a CONNECT answered anything but 200.
 */
export function proxyRefusal(err: { message?: string }): { status: number; tunnel: boolean } | undefined {
  const message = err.message ?? '';
  if (message === 'Proxy Authentication Required (407)') return { status: 407, tunnel: false };
  const connect = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/.exec(message);
  return connect ? { status: Number(connect[1]), tunnel: true } : undefined;
}

/** The one line for a refusal by `proxy` of POST `path` to `target`. */
export function refusalMessage(refusal: { status: number; tunnel: boolean }, proxy: EnvProxy, path: string, target: URL): string {
  const asked = refusal.tunnel ? `CONNECT ${target.hostname}:${target.port || 443} (the tunnel for ${target.origin})` : `POST ${path}`;
  const head = `the proxy ${redactProxy(proxy.url)} answered ${refusal.status} to ${asked}`;
  if (refusal.status === 407) {
    return hasCredentials(proxy.url)
      ? `${head}: it did not accept the user name and password in ${proxy.name}; check them`
      : `${head}: it wants a user name and password; put them in ${proxy.name} as http://USER:PASSWORD@host:port`;
  }
  if (refusal.status === 403) {
    return `${head}: it does not allow this destination (many proxies tunnel only to port 443); ` +
      'ask its administrator, or add the host to NO_PROXY if it is reachable directly';
  }
  return `${head}: it did not open the tunnel`;
}

/**
 * The one line for a 403 to a request forwarded through `proxy`: the proxy and
 * the service answer alike, so it names both (NO_PROXY is not weighed).
 */
export function forwardedRefusalMessage(proxy: EnvProxy, path: string, what: string): string {
  return `the service answered 403 to POST ${path}: ${what} (through the proxy ${redactProxy(proxy.url)}, ` +
    'unless NO_PROXY excludes it: the refusal may be the proxy\'s)';
}
