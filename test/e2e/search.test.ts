import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { ndjson, runCli } from '../support/cli.js';

const PATH = '/api/v1/tenders/search';
const sb = useSandbox({ size: 3000, seed: 7 });

const requestsSince = (n: number) => sb.requests.slice(n);

describe('tenders search', () => {
  it('prints the first page as NDJSON when stdout is not a terminal, exactly as the service sent it', async () => {
    const before = sb.requests.length;
    const r = await runCli(['search'], sb.url);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(sb.truth(PATH, {}).slice(0, 25));
    expect(requestsSince(before).map((q) => q.body)).toEqual([{}]);
  });

  it('sends every filter flag in the body and pages with the identical body plus cursor (--all)', async () => {
    const before = sb.requests.length;
    const args = ['search', '--all', '-c', 'deu,fra', '--country', 'ITA', '-s', 'open', '--sort', 'DEADLINE', '--order', 'desc', '-n', '9', '--filter', 'minValue=1000'];
    const r = await runCli(args, sb.url);
    expect(r.code).toBe(0);
    const body = { limit: 9, sortBy: 'deadline', sortOrder: 'desc', buyerCountries: ['DEU', 'FRA', 'ITA'], statuses: ['open'], minValue: 1000 };
    const truth = sb.truth(PATH, body);
    expect(truth.length).toBeGreaterThan(20);
    expect(ndjson(r.stdout)).toEqual(truth);
    const bodies = requestsSince(before).map((q) => q.body as Record<string, unknown>);
    expect(bodies).toHaveLength(Math.ceil(truth.length / 9));
    expect(bodies[0]).toEqual(body);
    for (const [i, sent] of bodies.entries()) {
      const { cursor, ...rest } = sent;
      expect(rest).toEqual(body);
      if (i === 0) expect(cursor).toBeUndefined();
      else expect(typeof cursor).toBe('string');
    }
  });

  it('stops after --max results, asking only for what it needs', async () => {
    const before = sb.requests.length;
    const r = await runCli(['search', '--max', '30', '--status', 'open'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(sb.truth(PATH, { statuses: ['open'] }).slice(0, 30));
    const bodies = requestsSince(before).map((q) => q.body as Record<string, unknown>);
    expect(bodies.map((b) => b.limit)).toEqual([30]);
  });

  it('continues from --cursor and prints JSON', async () => {
    const first = await runCli(['search', '-n', '5', '--sort', 'estimatedValue'], sb.url);
    const cursor = await nextCursorOf({ limit: 5, sortBy: 'estimatedValue' });
    const r = await runCli(['search', '-n', '5', '--sort', 'estimatedValue', '--cursor', cursor, '-f', 'json'], sb.url);
    expect(r.code).toBe(0);
    const truth = sb.truth(PATH, { sortBy: 'estimatedValue' });
    expect(ndjson(first.stdout)).toEqual(truth.slice(0, 5));
    expect(JSON.parse(r.stdout)).toEqual(truth.slice(5, 10));
  });

  it('turns a 400 invalid cursor into advice to start again without --cursor', async () => {
    const cursor = await nextCursorOf({ limit: 5, buyerCountries: ['DEU'] });
    const before = sb.requests.length;
    const r = await runCli(['search', '-n', '5', '-c', 'FRA', '--cursor', cursor], sb.url);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^tenders: .*cursor.*does not belong to these filters.*start again without --cursor\n$/);
    expect(requestsSince(before)).toHaveLength(1);
    const forged = await runCli(['search', '--cursor', 'not-a-cursor'], sb.url);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/start again without --cursor/);
  });

  it('shows the service message for other errors', async () => {
    const r = await runCli(['search', '--filter', 'colour=red'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: the service answered 400 to POST \/api\/v1\/tenders\/search: unknown field: colour\n$/);
  });

  it('prints a table with hostile titles that contains no escape or control bytes', async () => {
    const wide = await runCli(['search', '-f', 'table', '-n', '30'], sb.url, { env: { COLUMNS: '250' } });
    const ids = wide.stdout.trimEnd().split('\n').slice(1).map((line) => line.split(' ')[0]);
    expect(ids).toEqual(sb.truth(PATH, {}).slice(0, 30).map((t) => (t as { id: string }).id));
    expect(wide.stdout.split('\n')[0]).toMatch(/^id\s+published\s+deadline\s+status\s+country\s+buyer\s+value €\s+title$/);
    const r = await runCli(['search', '-f', 'table', '-n', '50'], sb.url, { env: { COLUMNS: '100' } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(51);
    expect(lines[0]).toMatch(/^id\s+published\s+deadline\s/);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).toContain('…');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(100);
  });
});

/** The nextCursor the service gives for the first page of `body`. */
async function nextCursorOf(body: object): Promise<string> {
  const res = await fetch(`${sb.url}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { page: { nextCursor: string } };
  return json.page.nextCursor;
}
