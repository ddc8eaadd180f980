// The local queries over a copy of BIG tenders (issue 21): `search --local` full text, a
// two-word query, first page, its query time as the CLI measures it inside the process
// (--verbose: "the local copy gave the first N tenders in X ms"), and the wall time of
// `count --local --by buyer.name`, a whole process. The copy is made by `tenders sync`
// from the sandbox; `node bench/local.js --db PATH` measures an existing copy alone.
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
