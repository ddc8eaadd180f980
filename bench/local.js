// The local queries over a copy of BIG tenders (issue 21): `search --local` full text, a
// two-word query, first page, its query time as the CLI measures it inside the process
// (--verbose: "the local copy gave the first N tenders in X ms"), and the wall time of
// `count --local --by buyer.name`, a whole process. The copy is made by `tenders sync`
// from the sandbox; `node bench/local.js --db PATH` measures an existing copy alone.
// The procurement queries (issue 36) over the same copy, in either engine: `search --local
// --cpv 45 -c DEU` (first page, query time), `count --local --by cpv --cpv-level 2` (a whole
// process) and `show ID --local` against the start-up of a dry run, alternating.
import { spawnSync } from 'node:child_process';
import { uptime } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timed } from './procs.js';

export const LOCAL_WORDS = ['cleaning', 'services'];
const FIRST_PAGE = /the local copy gave the first (\d+) tenders in ([\d.]+) ms/;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** Fills `db` with `tenders sync` from the service at `url`; false when this build has no sync command. */
export function syncCopy(node, cli, url, db) {
  const r = spawnSync(node, [cli, 'sync', 'bench', '--db', db], { env: { ...process.env, TENDERS_BASE_URL: url }, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status === 0) return true;
  if (/unknown command/.test(r.stderr)) return false;
  throw new Error(`local: tenders sync failed: ${r.stderr.trim()}`);
}

/** Medians and every run of the two local measures over the copy `db`. */
export async function measureLocal(node, cli, db, runs) {
  const env = { TENDERS_DB: db, NO_COLOR: '1' };
  const search = [cli, 'search', '--local', '--verbose', '-f', 'ndjson', ...LOCAL_WORDS];
  const queryMs = [];
  const countSeconds = [];
  let rows = 0;
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(node, search, { env: { ...process.env, ...env }, encoding: 'utf8' });
    const m = FIRST_PAGE.exec(r.stderr);
    if (r.status !== 0 || !m) throw new Error(`local: search --local failed: ${r.stderr.trim()}`);
    rows = Number(m[1]);
    queryMs.push(Number(m[2]));
    countSeconds.push(await timed(node, [cli, 'count', '--local', '--by', 'buyer.name'], env));
  }
  const total = spawnSync(node, [cli, 'count', '--local'], { env: { ...process.env, ...env }, encoding: 'utf8' }).stdout.trim();
  return {
    check: `a copy of ${total} tenders; '${LOCAL_WORDS.join(' ')}' gave a first page of ${rows}`,
    queryMs: median(queryMs),
    countBySeconds: median(countSeconds),
    runs: { queryMs, countSeconds },
    uptime: uptime(),
  };
}

/** The three procurement measures over the copy `db` (a SQLite file or a postgres:// URL). */
export async function measureProcurement(node, cli, db, runs) {
  const env = { TENDERS_DB: db, NO_COLOR: '1' };
  const search = [cli, 'search', '--local', '--verbose', '-f', 'ndjson', '--cpv', '45', '-c', 'DEU'];
  const cpvMs = [];
  const countSeconds = [];
  let rows = 0;
  let id;
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(node, search, { env: { ...process.env, ...env }, encoding: 'utf8' });
    const m = FIRST_PAGE.exec(r.stderr);
    if (r.status !== 0 || !m) throw new Error(`local: search --local --cpv 45 -c DEU failed: ${r.stderr.trim()}`);
    rows = Number(m[1]);
    cpvMs.push(Number(m[2]));
    id ??= JSON.parse(r.stdout.split('\n')[0]).id;
    countSeconds.push(await timed(node, [cli, 'count', '--local', '--by', 'cpv', '--cpv-level', '2'], env));
  }
  // show against what any command costs to start (the bench's start-up row: a dry run), alternating.
  const show = [];
  const startup = [];
  for (let i = 0; i < runs * 3; i++) {
    show.push(await timed(node, [cli, 'show', String(id), '--local'], env));
    startup.push(await timed(node, [cli, '--dry-run', 'search', '-c', 'DEU'], { TENDERS_BASE_URL: 'http://127.0.0.1:9' }));
  }
  return {
    check: `--cpv 45 -c DEU gave a first page of ${rows}; show ${id} exit 0`,
    cpvSearchMs: median(cpvMs),
    cpvCountSeconds: median(countSeconds),
    showMs: (median(show) - median(startup)) * 1000,
    runs: { cpvMs, countSeconds, showSeconds: show, startupSeconds: startup },
  };
}

// Run alone: node bench/local.js --db PATH [--runs N]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = (flag) => process.argv[process.argv.indexOf(flag) + 1];
  if (!process.argv.includes('--db')) {
    console.error('usage: node bench/local.js --db PATH [--runs N]  (npm run bench makes a copy with tenders sync)');
    process.exit(2);
  }
  const root = fileURLToPath(new URL('..', import.meta.url));
  const result = await measureLocal(process.execPath, join(root, 'bin/tenders.js'), at('--db'), Number(process.argv.includes('--runs') ? at('--runs') : 5));
  console.log(JSON.stringify(result, null, 2));
  console.log(`uptime: ${spawnSync('uptime', { encoding: 'utf8' }).stdout.trim()}`);
}
