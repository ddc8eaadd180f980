import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTRIES } from '../../src/sandbox/catalogue.js';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { ndjson, runCli } from '../support/cli.js';
import { whenDir } from '../support/dir-events.js';

const PATH = '/api/v1/tenders/search';
const FOUR = 'DEU,FRA,ITA,POL';
// A little latency, so that the chains really are in flight together.
const sb = useSandbox({ size: 4000, seed: 13, faults: { latencyMs: 5 } });

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const exists = (path: string) => access(path).then(() => true, () => false);

describe('export --parallel against the sandbox', () => {
  it.each([
    ['csv', []],
    ['ndjson', []],
    ['json', []],
    ['csv', ['--sort', 'publicationDate', '--order', 'asc']],
    ['ndjson', ['--sort', 'deadline']],
    ['json', ['--sort', 'deadline', '--order', 'desc']],
    ['csv', ['--sort', 'estimatedValue']],
    ['ndjson', ['--sort', 'estimatedValue', '--order', 'asc']],
  ])('-f %s %j: the same bytes as the single walk', async (format, sort) => {
    const args = ['export', '-f', format, '-c', FOUR, ...sort];
    const single = await runCli(args, sb.url);
    const merged = await runCli([...args, '--parallel', '4'], sb.url);
    expect(merged.code).toBe(0);
    expect(merged.stderr).toBe('');
    expect(merged.stdout).toBe(single.stdout);
    if (format === 'ndjson') {
      const body = { buyerCountries: FOUR.split(','), ...(sort.length ? { sortBy: sort[1], ...(sort[3] ? { sortOrder: sort[3] } : {}) } : {}) };
      expect(ndjson(merged.stdout)).toEqual(sb.truth(PATH, body));
    }
  });

  it('walks one chain per status when one country is named, each with its identical body plus cursor', async () => {
    sb.clearRequests();
    const r = await runCli(['export', '-f', 'ndjson', '-c', 'DEU', '-s', 'open,closed,awarded', '--parallel', '3'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(sb.truth(PATH, { buyerCountries: ['DEU'], statuses: ['open', 'closed', 'awarded'] }));
    const chains = new Set(sb.requests.map((q) => JSON.stringify({ ...(q.body as object), cursor: undefined })));
    expect([...chains].map((c) => (JSON.parse(c) as { statuses: string[] }).statuses)).toEqual([['open'], ['closed'], ['awarded']]);
  });

  it('drops the tenders a chain repeats across its page boundaries, writing each once', async () => {
    sb.setFaults({ repeatOverlap: true });
    sb.clearRequests();
    const r = await runCli(['export', '-f', 'ndjson', '-c', FOUR, '--parallel', '2', '-v'], sb.url);
    expect(r.code).toBe(0);
    const truth = sb.truth(PATH, { buyerCountries: FOUR.split(',') });
    expect(ndjson(r.stdout)).toEqual(truth);
    const dropped = Number(/, (\d+) duplicates dropped/.exec(r.stderr)?.[1]);
    expect(dropped).toBe(sb.requests.filter((q) => (q.body as { cursor?: string }).cursor !== undefined).length);
  });

  it('ends with exit 1 and leaves FILE alone when the service returns a chain out of order', async () => {
    sb.setFaults({ missort: true });
    const file = join(testDir(), 'missorted.csv');
    const r = await runCli(['export', '-c', FOUR, '--sort', 'deadline', '--parallel', '4', '-o', file], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: the (DEU|FRA|ITA|POL) chain is not in deadline asc \(read from deadline\) order: id "T-\d+" \(\S+\) came after id "T-\d+" \(\S+\); the merge of --parallel relies on that order: check --sort-path, or run without --parallel\n$/);
    expect(await exists(file)).toBe(false);
    expect(await exists(`${file}.partial`)).toBe(false);
  });

  it('search --all and orgs tenders --all merge their chains as export does', async () => {
    const search = ['search', '--all', '-f', 'ndjson', '-c', FOUR, '--sort', 'deadline'];
    const merged = await runCli([...search, '--parallel', '3'], sb.url);
    expect(merged.code).toBe(0);
    expect(merged.stdout).toBe((await runCli(search, sb.url)).stdout);
    const org = (sb.truth(PATH, {}) as { buyer: { id: string } }[])[0]!.buyer.id;
    const tenders = ['orgs', 'tenders', org, '--all', '-f', 'ndjson', '-s', 'open,closed,awarded'];
    const orgMerged = await runCli([...tenders, '--parallel', '2'], sb.url);
    expect(orgMerged.code).toBe(0);
    expect(ndjson(orgMerged.stdout).length).toBeGreaterThan(0);
    expect(orgMerged.stdout).toBe((await runCli(tenders, sb.url)).stdout);
  });

  it('walks a dozen chains without a word on stderr', async () => {
    const twelve = COUNTRIES.slice(0, 12).map((c) => c.code).join(',');
    const r = await runCli(['export', '-f', 'ndjson', '-c', twelve, '--parallel', '16'], sb.url);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(ndjson(r.stdout)).toEqual(sb.truth(PATH, { buyerCountries: twelve.split(',') }));
  });

  it('--verbose says when --parallel has nothing to split', async () => {
    const r = await runCli(['export', '-c', 'DEU', '--parallel', '4', '-v'], sb.url);
    expect(r.stderr).toContain('* --parallel 4: nothing to split (the query names fewer than two countries and statuses): one chain\n');
  });
});

describe('a tender in two chains', () => {
  // A service whose "open" and "closed" chains both hold T-2 (closed while paging), two pages each.
  let server: Server;
  let url: string;
  const chains: Record<string, { id: string; publicationDate: string }[]> = {
    open: [{ id: 'T-5', publicationDate: '2024-05-01' }, { id: 'T-3', publicationDate: '2024-03-01' }, { id: 'T-2', publicationDate: '2024-02-01' }],
    closed: [{ id: 'T-4', publicationDate: '2024-04-01' }, { id: 'T-2', publicationDate: '2024-02-01' }, { id: 'T-1', publicationDate: '2024-01-01' }],
  };
  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as { statuses: string[]; cursor?: string };
        const items = chains[body.statuses[0]!]!;
        const from = body.cursor === undefined ? 0 : 2;
        const page = { nextCursor: from === 0 ? `${body.statuses[0]}-2` : null, total: from === 0 ? { count: items.length, capped: false } : null };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ tenders: items.slice(from, from + 2), page }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is written once and counted', async () => {
    const r = await runCli(['export', '-f', 'ndjson', '-s', 'open,closed', '--parallel', '2', '-v'], url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).map((t) => (t as { id: string }).id)).toEqual(['T-5', 'T-4', 'T-3', 'T-2', 'T-1']);
    expect(r.stderr).toContain('* 5 tenders in 4 pages, 1 duplicate dropped');
    expect(r.stderr).toContain('tenders: warning: the service counted 6 tenders but 5 were written: the data changed while paging\n');
  });
});

describe('export --parallel -o FILE stopped by SIGINT, then --resume', () => {
  it('finishes byte-identical to an uninterrupted run with the same --parallel', async () => {
    const args = ['export', '-c', FOUR, '--sort', 'deadline', '--parallel', '3', '-n', '50'];
    const clean = join(testDir(), 'clean.csv');
    expect((await runCli([...args, '-o', clean], sb.url)).code).toBe(0);

    const file = join(testDir(), 'stopped.csv');
    sb.setFaults({ latencyMs: 40 });
    let stop = () => {};
    const stopped = await runCli([...args, '-o', file], sb.url, {
      // Each checkpoint renames a new state into place: a change of the directory.
      onSpawn: (child) => {
        const committed = async () => (JSON.parse(await readFile(`${file}.resume.json`, 'utf8')) as { pages: number }).pages >= 8;
        stop = whenDir(testDir(), committed, () => child.kill('SIGINT'));
      },
    });
    stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/^tenders: interrupted by SIGINT; the [\d,]+ tenders written so far are kept in .*stopped\.csv\.partial: run the same command with --resume to continue\n$/);
    const state = JSON.parse(await readFile(`${file}.resume.json`, 'utf8')) as { partitions: { position: { cursor: string | null; skip: number; done: boolean } }[] };
    expect(state.partitions).toHaveLength(4);

    sb.setFaults({});
    sb.clearRequests();
    const resumed = await runCli([...args, '-o', file, '--resume'], sb.url);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toBe('');
    expect(await readFile(file)).toEqual(await readFile(clean));
    // Each unfinished chain starts again at the page its unwritten rows are on.
    const firsts = new Map<string, string | undefined>();
    for (const q of sb.requests) {
      const body = q.body as { buyerCountries: string[]; cursor?: string };
      if (!firsts.has(body.buyerCountries[0]!)) firsts.set(body.buyerCountries[0]!, body.cursor);
    }
    FOUR.split(',').forEach((country, i) => {
      const { position } = state.partitions[i]!;
      if (position.done) expect(firsts.has(country)).toBe(false);
      else expect(firsts.get(country)).toBe(position.cursor ?? undefined);
    });
  });
});

describe('count --by against the sandbox', () => {
  const big = useSandbox({ size: 30_000, seed: 2 });

  it('counts 30 000 tenders exactly where the service stops at 10 000', async () => {
    const all = COUNTRIES.map((c) => c.code).join(',');
    expect((await runCli(['count', '-c', all], big.url)).stdout).toBe('10000+\n');
    big.clearRequests();
    const r = await runCli(['count', '-c', all, '--by', 'country', '--parallel', '16', '-f', 'json'], big.url);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const json = JSON.parse(r.stdout) as { count: number; capped: boolean; partitions: { country: string; count: number }[] };
    expect(json).toMatchObject({ by: 'country', count: 30_000, capped: false });
    expect(json.partitions.map((p) => p.country)).toEqual(COUNTRIES.map((c) => c.code));
    expect(big.requests.map((q) => (q.body as { limit: number }).limit)).toEqual(COUNTRIES.map(() => 1));
    const text = await runCli(['count', '-c', all, '--by', 'country'], big.url);
    expect(text.stdout.trim().split('\n').at(-1)).toBe('total    30000'); // into a pipe: plain numbers, as count prints
  });

  it('--by country without --country counts every country, printing those with matches', async () => {
    big.clearRequests();
    const r = await runCli(['count', '--by', 'country', '-f', 'json'], big.url);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const json = JSON.parse(r.stdout) as { count: number; capped: boolean; partitions: { country: string; count: number }[] };
    expect(json).toMatchObject({ by: 'country', count: 30_000, capped: false });
    const codes = COUNTRIES.map((c) => c.code);
    expect(json.partitions.length).toBeGreaterThan(20);
    expect(json.partitions.every((p) => codes.includes(p.country))).toBe(true); // the sandbox's countries, in ISO order
    expect(json.partitions.every((p) => p.count > 0)).toBe(true);
    expect(big.requests).toHaveLength(249);
  });

  it('splits a capped part by country until exact', async () => {
    const r = await runCli(['count', '-s', 'open,closed', '--by', 'status', '-f', 'csv'], big.url);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const rows = r.stdout.trim().split('\n').slice(1).map((line) => line.split(','));
    expect(rows.map((row) => row[0])).toEqual(['open', 'closed']);
    expect(Number(rows[0]![1])).toBeGreaterThan(10_000); // about half of 30 000 are open: more than the service counts
    expect(rows.map((row) => row[2])).toEqual(['false', 'false']);
  });
});

describe('--receipt against the sandbox', () => {
  it('records a complete export: requests as the service saw them, the file\'s SHA-256', async () => {
    const file = join(testDir(), 'receipted.ndjson');
    const receipt = join(testDir(), 'receipted.json');
    sb.setFaults({ errorEvery: 5 });
    sb.clearRequests();
    const r = await runCli(['export', '-f', 'ndjson', '-c', FOUR, '--parallel', '2', '-o', file, '--receipt', receipt], sb.url);
    expect(r.code).toBe(0);
    const json = JSON.parse(await readFile(receipt, 'utf8')) as Record<string, any>;
    const data = await readFile(file);
    const retried = sb.requests.filter((q) => q.status === 503).length;
    expect(json).toMatchObject({
      command: 'export',
      requests: sb.requests.length,
      retries: { '503': retried },
      pages: sb.requests.length - retried,
      rowsWritten: ndjson(data.toString()).length,
      complete: true,
      error: null,
      partitionedBy: 'country',
      output: { file, committed: true, bytes: data.length, sha256: sha256(data) },
    });
    expect(json.expected).toEqual({ count: json.rowsWritten, capped: false });
    expect(json.query).toEqual({ baseUrl: `${sb.url}/`, path: PATH, body: { limit: 100, buyerCountries: FOUR.split(',') } });
  });

  it('records a failed export (the service failing after some pages)', async () => {
    const receipt = join(testDir(), 'failed.json');
    sb.setFaults({ failAfter: 3 });
    const r = await runCli(['export', '-c', FOUR, '--parallel', '2', '--retries', '0', '-o', join(testDir(), 'failed.csv'), '--receipt', receipt], sb.url);
    expect(r.code).toBe(1);
    const json = JSON.parse(await readFile(receipt, 'utf8')) as Record<string, any>;
    expect(json.error).toEqual({ message: r.stderr.replace(/^tenders: /, '').trimEnd(), exitCode: 1 });
    expect(json.complete).toBe(false);
    expect(json.output.committed).toBe(false);
  });

  it('records an export interrupted by SIGINT', async () => {
    const receipt = join(testDir(), 'interrupted.json');
    sb.setFaults({ latencyMs: 50 });
    let stop = () => {};
    const r = await runCli(['export', '-c', FOUR, '-o', join(testDir(), 'interrupted.csv'), '--receipt', receipt], sb.url, {
      // Stopped once its first page is committed (the resume state appears), mid-way through the export.
      onSpawn: (child) => (stop = whenDir(testDir(), () => exists(join(testDir(), 'interrupted.csv.resume.json')), () => child.kill('SIGINT'))),
    });
    stop();
    expect(r.code).toBe(130);
    const json = JSON.parse(await readFile(receipt, 'utf8')) as Record<string, any>;
    expect(json.error).toEqual({ message: r.stderr.replace(/^tenders: /, '').trimEnd(), exitCode: 130 });
    expect(json.complete).toBe(false);
  });
});
