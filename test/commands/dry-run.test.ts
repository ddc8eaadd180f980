import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/cli.js';
import { memoryIO } from '../support/io.js';

const URL = 'http://service.test/api/v1/tenders/search';

/** Runs with --dry-run and a client factory that fails the test if it is ever asked for a client. */
async function dryRun(argv: string[], env: Record<string, string> = {}) {
  const t = memoryIO({ env: { TENDERS_BASE_URL: 'http://service.test', ...env } });
  let clients = 0;
  const code = await execute([...argv, '--dry-run'], t.io, {
    createClient: async () => {
      clients++;
      throw new Error('--dry-run made a client');
    },
  });
  expect(clients).toBe(0);
  return { code, stdout: t.stdout.text, stderr: t.stderr.text };
}

const request = (url: string, body: unknown) => `POST ${url}\n${JSON.stringify(body, null, 2)}\n`;

describe('--dry-run', () => {
  it('prints the method, URL and pretty JSON body of the first request, and sends nothing', async () => {
    const r = await dryRun(['search', '-c', 'deu', '-s', 'OPEN', '--sort', 'deadline', '--filter', 'minValue=1000']);
    expect(r).toEqual({
      code: 0,
      stdout: request(URL, { sortBy: 'deadline', buyerCountries: ['DEU'], statuses: ['open'], minValue: 1000 }),
      stderr: '',
    });
    expect(r.stdout.split('\n').slice(0, 3)).toEqual([`POST ${URL}`, '{', '  "sortBy": "deadline",']);
  });

  it('shows the body a walk sends: --cursor, the page size of --all and export, orgs paths', async () => {
    expect((await dryRun(['search', '--cursor', 'abc', '-n', '5'])).stdout).toBe(request(URL, { limit: 5, cursor: 'abc' }));
    expect((await dryRun(['search', '--all'])).stdout).toBe(request(URL, { limit: 100 }));
    expect((await dryRun(['export'])).stdout).toBe(request(URL, { limit: 100 }));
    const org = await dryRun(['orgs', 'tenders', 'ORG/1', '--sort', 'estimatedValue']);
    expect(org.stdout).toBe(request('http://service.test/api/v1/organisations/ORG%2F1/tenders/search', { sortBy: 'estimatedValue' }));
    const orgs = await dryRun(['orgs', 'search', '--query', 'klinik'], { TENDERS_BASE_URL: 'https://example.org/prefix/' });
    expect(orgs.stdout).toBe(request('https://example.org/prefix/api/v1/organisations/search', { query: 'klinik' }));
  });

  it('prints each first request of a partitioned walk and of count --by, a blank line between', async () => {
    const walk = await dryRun(['export', '-c', 'deu,fra', '--parallel', '2']);
    expect(walk.stdout).toBe(`${request(URL, { limit: 100, buyerCountries: ['DEU'] })}\n${request(URL, { limit: 100, buyerCountries: ['FRA'] })}`);
    const oneChain = await dryRun(['export', '-c', 'deu', '--parallel', '2']);
    expect(oneChain.stdout).toBe(request(URL, { limit: 100, buyerCountries: ['DEU'] }));
    expect((await dryRun(['count', '-s', 'open'])).stdout).toBe(request(URL, { statuses: ['open'], limit: 1 }));
    const by = await dryRun(['count', '-s', 'open,closed', '--by', 'status']);
    expect(by.stdout).toBe(`${request(URL, { statuses: ['open'], limit: 1 })}\n${request(URL, { statuses: ['closed'], limit: 1 })}`);
  });

  it('fields and watch: their first pages; a watch keeps no state and -o writes no file', async () => {
    expect((await dryRun(['fields', '-c', 'ita'])).stdout).toBe(request(URL, { limit: 20, buyerCountries: ['ITA'] }));
    const dir = await mkdtemp(join(tmpdir(), 'tenders-dry-run-'));
    const watch = await dryRun(['watch', 'deu', '-c', 'deu', '-o', join(dir, 'changes.csv')], { TENDERS_STATE_DIR: join(dir, 'state') });
    expect(watch.stdout).toBe(request(URL, { buyerCountries: ['DEU'], limit: 100 }));
    const exported = await dryRun(['export', '-o', join(dir, 'all.csv')]);
    expect(exported.code).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it('usage errors stay usage errors; --list and --forget send nothing to show', async () => {
    const bad = await dryRun(['search', '-c', 'de']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    const forget = await dryRun(['watch', 'deu', '--forget']);
    expect(forget).toMatchObject({ code: 2, stderr: "tenders: --dry-run shows the requests a run would send: --forget sends none\n" });
  });
});
