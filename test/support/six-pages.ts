import type { SandboxOptions } from '../../src/sandbox/server.js';

/**
 * An export small enough that injected faults and waits stay short: against
 * a sandbox of SIX_PAGES_SANDBOX, nine countries' tenders in 6 pages of 100.
 */
export const SIX_PAGES_SANDBOX: SandboxOptions = { size: 1200, seed: 11 };
export const SIX_PAGES_EXPORT = ['export', '-f', 'ndjson', '--country', 'DEU,FRA,ITA,ESP,POL,NLD,BEL,AUT,SWE'];
/** The body of its requests. */
export const SIX_PAGES_BODY = { limit: 100, buyerCountries: ['DEU', 'FRA', 'ITA', 'ESP', 'POL', 'NLD', 'BEL', 'AUT', 'SWE'] };
