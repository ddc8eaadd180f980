/** What a preflight allows: the methods the API answers and the headers a client sends to it. */
const PREFLIGHT = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '600',
};

/**
 * The CORS headers of an answer to a request from `origin` (`--cors`): the
 * origin allowed when it is one of `allowed` (or `*` is), nothing otherwise.
 * Without --cors no header, and OPTIONS is a method like any other (405).
 */
export function corsHeaders(allowed: readonly string[] | undefined, origin: string | undefined): Record<string, string> {
  if (allowed === undefined || allowed.length === 0) return {};
  if (allowed.includes('*')) return { 'access-control-allow-origin': '*' };
  // The answer depends on the request's Origin: a shared cache must keep one per origin.
  return origin !== undefined && allowed.includes(origin) ? { 'access-control-allow-origin': origin, vary: 'origin' } : { vary: 'origin' };
}

/** The answer to a CORS preflight (OPTIONS with --cors): 204 with what may be sent; before any token is asked for, as browsers send none. */
export function preflightHeaders(allowed: readonly string[], origin: string | undefined): Record<string, string> {
  return { ...corsHeaders(allowed, origin), ...PREFLIGHT };
}
