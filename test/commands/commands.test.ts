import { describe, expect, it } from 'vitest';
import { pagedTenders, type Responder } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

const orgs: Responder = ({ body }) => ({
  json: { organisations: [{ id: 'ORG-1', name: 'Klinikum', country: 'DEU', tenderCount: 3 }], page: { nextCursor: null, total: body.cursor ? null : { count: 1, capped: false } } },
});

describe('count', () => {
  it('asks for one result and prints page.total, "+" when capped', async () => {
    const capped: Responder = () => ({ json: { tenders: [], page: { nextCursor: null, total: { count: 10_000, capped: true } } } });
    const r = await runInProcess(['count', '-c', 'fra'], capped);
    expect(r.stdout).toBe('10000+\n');
    expect(r.client.requests.map((q) => q.body)).toEqual([{ buyerCountries: ['FRA'], limit: 1 }]);
  });

  it('--format json prints {count, capped}', async () => {
    const r = await runInProcess(['count', '--format', 'json'], pagedTenders(7));
    expect(JSON.parse(r.stdout)).toEqual({ count: 7, capped: false });
  });

  it('a first page without a total is a bad response, exit 1', async () => {
    const r = await runInProcess(['count'], () => ({ json: { tenders: [], page: { nextCursor: null, total: null } } }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: bad response from the service \(200 to POST \/api\/v1\/tenders\/search\): the first page has no "page.total"\n$/);
  });
});

describe('orgs', () => {
  it('orgs search posts query and countries to the organisations path', async () => {
    const r = await runInProcess(['orgs', 'search', '--query', 'klinik', '-c', 'deu,aut'], orgs);
    expect(r.code).toBe(0);
    expect(r.client.requests).toEqual([{ path: '/api/v1/organisations/search', body: { countries: ['DEU', 'AUT'], query: 'klinik' } }]);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'ORG-1' });
  });

  it('orgs tenders fills the id into the path, URL-encoded, with the tender body', async () => {
    const r = await runInProcess(['orgs', 'tenders', 'ORG/1 x', '--sort', 'deadline'], pagedTenders(3));
    expect(r.client.requests[0]).toEqual({ path: '/api/v1/organisations/ORG%2F1%20x/tenders/search', body: { sortBy: 'deadline' } });
  });

  it('--path and the environment move an operation; a path without {id} is refused', async () => {
    const moved = await runInProcess(['orgs', 'search', '--path', '/v2/buyers'], orgs);
    expect(moved.client.requests[0]!.path).toBe('/v2/buyers');
    const env = await runInProcess(['orgs', 'tenders', 'X'], pagedTenders(1), { env: { TENDERS_ORG_TENDERS_PATH: '/b/{id}/t' } });
    expect(env.client.requests[0]!.path).toBe('/b/X/t');
    const bad = await runInProcess(['orgs', 'tenders', 'X', '--path', '/b/t'], pagedTenders(1));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("tenders: the path template '/b/t' has no {id} placeholder\n");
    const relative = await runInProcess(['orgs', 'search', '--path', 'v2'], orgs);
    expect(relative.stderr).toBe("tenders: the API path must start with '/', not 'v2'\n");
  });

  it('a group without its command is a usage error', async () => {
    const r = await runInProcess(['orgs'], orgs);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/tenders: missing command: choose one of those above\n$/);
  });
});

describe('errors → exit codes', () => {
  it.each([
    [['search', '--bogus'], /^tenders: unknown option '--bogus' \(see 'tenders search --help'\)\n$/],
    [['search', '-q', '-v'], /^tenders: --quiet and --verbose contradict each other: choose one\n$/],
    [['search', '--resume'], /^tenders: unknown option '--resume'/],
    [['export', '--resume'], /^tenders: --resume continues an export into a file: use it with -o FILE\n$/],
    [['export', '-o', ' '], /^tenders: -o takes a file name\n$/],
    [['search', '--timeout', 'soon'], /^tenders: --timeout takes a whole number 1 or more, not 'soon'\n$/],
    [['search', '--color', 'pink'], /^tenders: --color takes one of auto, always, never, not 'pink' \(see 'tenders --help'\)\n$/],
  ])('%j is a usage error (exit 2) before any request', async (argv, message) => {
    const r = await runInProcess(argv, pagedTenders(1));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.client.requests).toHaveLength(0);
  });

  it('no base URL says how to set one', async () => {
    const r = await runInProcess(['search'], pagedTenders(1), { env: { TENDERS_BASE_URL: undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: no service URL: pass --base-url URL or set TENDERS_BASE_URL/);
  });

  it('an unexpected error hides its stack unless --verbose', async () => {
    const crash: Responder = () => {
      throw new TypeError('oops');
    };
    const quiet = await runInProcess(['search'], crash);
    expect(quiet.stderr).toBe('tenders: unexpected error: oops (run with --verbose for details)\n');
    const loud = await runInProcess(['search', '-v'], crash);
    expect(loud.stderr).toMatch(/^tenders: unexpected error: oops\nTypeError: oops\n\s+at /);
  });

  it('--help and --version exit 0 on stdout', async () => {
    const help = await runInProcess(['export', '--help'], pagedTenders(1));
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tenders export \[options\]/);
    expect(help.stdout).toMatch(/output format\s+\(table\|csv\|ndjson\|json\|tsv\|ics\|atom\|ocds\|parquet;\s+default: csv\)/);
    expect(help.stdout).toContain('(default: 30000)');
    const version = await runInProcess(['--version'], pagedTenders(1));
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
