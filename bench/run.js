#!/usr/bin/env node
// npm run bench [-- --quick]: the export's cost in every format the CLI has against a
// floor program (and NDJSON against a curl + jq loop), its peak memory as the export grows, start-up, what --parallel
// gains against a service 50 ms away (and costs in memory), and what a watch costs (a
// full run against an export of the same query; --new-only after 50 new tenders), and what a
// sync costs (a first sync and a re-sync against an export; --new-only; peak RSS as it grows), in one run.
// Contenders alternate run by run and medians are reported, so a noisy neighbour hurts
// every contender alike. Results go to bench/results/<timestamp>.json and latest.json
// (--quick: 3 runs of 20 000 tenders, <timestamp>-quick.json only, ignored by git;
// --exports: only the exports of every format against the floor and their peak RSS, the
// table of issue 24 in a few minutes, <timestamp>-exports.json only; --sync: only the sync
// rows, SQLite and PostgreSQL, <timestamp>-sync.json only; --startup: only the start-up of
// --version and of a real command against node -e 0, in about a minute, <timestamp>-startup.json only;
// --serve: only the rows over the copy of BIG tenders: local and procurement queries, `tenders serve`
// under load (bench/serve.js), its page and download, <timestamp>-serve.json only).
// The PostgreSQL rows run against a throwaway cluster (bench/postgres.js); without the
// PostgreSQL binaries the bench says so in one line and skips them.
// Exit 0 even when a target is missed (this is a report); 1 when the bench could not
// run or a contender wrote the wrong output.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalLines, checkCsv, sameLines } from './check.js';
import { measureLocal, measureProcurement, syncCopy } from './local.js';
import { postgresCopy, stopClusters } from './postgres.js';
import { hasCommand, peakRssMb, rssMethod, startSandbox, stopAll, timed } from './procs.js';
import { CONNECTIONS, measureDownload, measureServe } from './serve.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const exportsOnly = process.argv.includes('--exports');
const startupOnly = process.argv.includes('--startup');
const syncOnly = process.argv.includes('--sync');
const serveOnly = process.argv.includes('--serve');
const SIZE = quick ? 20_000 : 50_000;
const BIG = quick ? 80_000 : 200_000; // 4 × SIZE either way, so the RSS ratio means the same
const RUNS = quick ? 3 : 5;
const STARTUP_RUNS = quick ? 9 : 15;
const RSS_RUNS = quick ? 1 : 3;
// The latency case: a service 50 ms away, an export of 12 countries (about 20 000 tenders)
// walked as one chain and as 12 chains, 8 requests in flight.
const LATENCY = {
  ms: 50,
  size: 35_000,
  countries: 'DEU,AUT,CHE,FRA,BEL,LUX,ITA,ESP,PRT,NLD,POL,CZE',
  parallel: 8,
  runs: quick ? 1 : 3,
};
// Every format's export / floor is reported (<format>Floor); these two formats have targets.
const TARGETS = {
  ndjsonFloor: { max: 1.05 },
  csvFloor: { max: 1.2 },
  curljqNdjson: { min: 3 },
  rss200k50k: { max: 1.2 }, // (80k/20k with --quick; the key names stay, settings say the sizes)
  csvRss200k50k: { max: 1.1 },
  rssMb200k: { below: 150 },
  startupNode: { max: 1.6 },
  startupCommand: { max: 1.3 }, // a real command: tenders --dry-run search -c DEU
  configStartupMs: { max: 5 }, // the same with a config file (docs/settings.md) minus without, in ms
  parallelSpeedup: { min: 4 },
  rssParallel: { max: 1.3 },
  watchExport: { max: 1.3 },
  newOnlyRequests: { max: 3 },
  newOnlyPage: undefined, // reported, no target: a --new-only run against one page request
  localQueryMs: { max: 50 }, // search --local, two words, first page, over BIG tenders: query time in the process
  localCountBy: { max: 1 }, // count --local --by buyer.name over BIG tenders, seconds of a whole process
  syncFirstExport: { max: 1.5 },
  resyncExport: { max: 1.5 },
  resyncRequests: { max: 1 }, // the re-sync's requests / the export's: the same walk
  syncNewOnlyRequests: { max: 3 },
  syncRss200k50k: { max: 1.3 },
  pgSyncFirstExport: { max: 2 }, // issue 22: a first sync into PostgreSQL
  pgResyncExport: undefined, // reported: a re-sync into PostgreSQL after SYNC_CHANGES changes
  pgSyncNewOnlyRequests: { max: 3 },
  pgWatchExport: undefined, // reported: a watch's daily run with its state in PostgreSQL (docs/watch.md)
  // Issue 36, over the BIG copy in each engine (pg…: PostgreSQL): query ms, seconds of a whole process, ms over start-up.
  cpvSearchMs: { max: 50 }, // search --local --cpv 45 -c DEU, first page
  cpvCountBy: { max: 1 }, // count --local --by cpv --cpv-level 2
  showMs: { max: 20 }, // show ID --local minus a dry run's start-up
  pgCpvSearchMs: { max: 50 },
  pgCpvCountBy: { max: 1 },
  pgShowMs: { max: 20 },
  // Issues 38 and 39: tenders serve over the BIG copy at CONNECTIONS connections (wrk).
  serveSandbox: { min: 0.8 }, // first page, requests/s: the replica / the sandbox's --cache server
  serveP99Ms: { max: 25 },
  serveCeiling: undefined, // reported: the replica / a bare node:http server answering the same bytes
  serveColdSandbox: undefined, // reported: the first page with --cache-mb 0 (every answer read from the copy) / the sandbox
  pgServeColdSandbox: undefined,
  serveFullTextP99Ms: { max: 50 }, // two words, exactTotal
  pageP99Ms: { max: 50 }, // GET /?q=two words, 25 results
  pgServeSandbox: { min: 0.8 },
  pgServeP99Ms: { max: 25 },
  pgServeFullTextP99Ms: { max: 50 },
  pgPageP99Ms: { max: 50 },
  downloadExport: { max: 1.2 }, // GET /syncs/bench/tenders.ndjson of BIG / export --local -f ndjson --sync bench
  downloadRss: { max: 1.2 }, // the server's peak RSS after that download: BIG / SIZE
};
// The serve rows: alternating rounds of wrk, seconds each.
const SERVE = { rounds: quick ? 1 : 3, seconds: quick ? 3 : 5 };
// The watch case, on the SIZE sandbox: this many tenders published before --new-only runs.
const WATCH_INSERT = 50;
// The sync case: tenders changed between two runs of a re-sync, and published before --new-only.
const SYNC_CHANGES = 50;

const node = process.execPath;
const cli = join(root, 'bin/tenders.js');
const sandboxBin = join(root, 'bin/tenders-sandbox.js');
const tmp = mkdtempSync(join(tmpdir(), 'tenders-bench-'));
const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const say = (line) => process.stderr.write(`${line}\n`); // progress; the table goes to stdout
// The table is a view for terminals, not an export format: every other format is measured.
const NOT_MEASURED = ['table'];

/**
 * The formats the built CLI offers, as it says itself when refusing one, so a format added to the CLI is measured
 * without editing the bench.
 */
function exportFormats() {
  const r = spawnSync(node, [cli, 'export', '--format', '-'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  // commander's words, or the CLI's own since its errors have one style ("--format takes one of a, b, c, not '-'").
  const choices = (/Allowed choices are (.+?)\.(?: |$)/m.exec(r.stderr) ?? /--format takes one of (.+?), not '/m.exec(r.stderr))?.[1];
  if (r.status !== 2 || !choices) throw new Error(`could not read the formats from tenders export: ${r.stderr.trim()}`);
  return choices.split(', ').filter((format) => !NOT_MEASURED.includes(format));
}

/** Measuring an old build would be a lie: refuse a missing dist/, warn on a stale one. */
function checkBuild() {
  const built = join(root, 'dist/cli.cjs');
  if (!existsSync(built)) throw new Error('dist/ is missing: run npm run build first');
  const newest = (dir) => Math.max(...readdirSync(dir, { recursive: true }).map((f) => statSync(join(dir, f)).mtimeMs));
  // dist/'s newest file: a build leaves a bundle whose bytes did not change as it was, and writes the code caches every time.
  if (newest(join(root, 'src')) > newest(join(root, 'dist'))) say('bench: warning: src/ is newer than dist/; run npm run build to measure the current code');
}

/** Every contender once, its output checked against the floor's; also warms the sandbox. */
async function verify(contenders, env) {
  const out = {};
  for (const [name, [cmd, args]] of Object.entries(contenders)) {
    const file = join(tmp, `${name}.out`);
    await timed(cmd, args, env, file);
    out[name] = readFileSync(file, 'utf8');
    rmSync(file);
  }
  const floor = canonicalLines(out.floor, 'floor');
  if (floor.length !== SIZE) throw new Error(`the floor wrote ${floor.length} lines, not ${SIZE}`);
  const checks = { floor: `${floor.length} lines`, curljq: 'skipped (no curl/jq, or --exports)' };
  for (const name of ['ndjson', 'curljq'].filter((n) => n in out)) {
    sameLines(floor, canonicalLines(out[name], name), name);
    checks[name] = `${floor.length} lines, the floor's tenders in order, equal after parsing${out[name] === out.floor ? ' (and byte for byte)' : ''}`;
  }
  const csv = checkCsv(out.csv, floor);
  checks.csv = `${csv.records} records of ${csv.columns} fields (RFC 4180 parse), ids in the floor's order`;
  if ('json' in out) {
    sameLines(floor, JSON.parse(out.json).map((tender) => JSON.stringify(tender)), 'json');
    checks.json = `an array of ${floor.length} tenders, the floor's in order, equal after parsing`;
  }
  // Formats without a check of their own here (their tests check them): exit 0 and some output.
  for (const name of Object.keys(out).filter((n) => !(n in checks))) {
    if (out[name].length === 0) throw new Error(`${name} wrote nothing`);
    checks[name] = `${out[name].length} characters, exit 0 (content checked by the format's tests, not here)`;
  }
  return checks;
}

async function measureTimes(contenders, env) {
  const times = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  for (let run = 1; run <= RUNS; run++) {
    for (const [name, [cmd, args]] of Object.entries(contenders)) times[name].push(await timed(cmd, args, env));
    say(`  run ${run}/${RUNS}: ${Object.entries(times).map(([n, t]) => `${n} ${t.at(-1).toFixed(3)} s`).join(', ')}`);
  }
  return times;
}

/** Peak RSS of the ndjson and csv exports (the targets) and of the floor (for reference), alternating. */
async function measureRss(url) {
  const env = { TENDERS_BASE_URL: url };
  const rss = { ndjson: [], csv: [], floor: [] };
  for (let i = 0; i < RSS_RUNS; i++) {
    rss.ndjson.push(await peakRssMb(node, [cli, 'export', '--format', 'ndjson'], env));
    rss.csv.push(await peakRssMb(node, [cli, 'export', '--format', 'csv'], env));
    rss.floor.push(await peakRssMb(node, [join(root, 'bench/floor.js')], env));
  }
  return rss;
}

async function measureStartup() {
  const startup = { version: [], command: [], config: [], node: [] };
  // A real command, which parses its flags and prints its request, but sends none.
  const command = [cli, '--dry-run', 'search', '-c', 'DEU'];
  // Without a config file (not the bench user's own), and with one as a user keeps it: a profile picked.
  const dir = mkdtempSync(join(tmpdir(), 'tenders-bench-config-'));
  const config = join(dir, 'config.toml');
  writeFileSync(config, '# tenders\nbase-url = "http://127.0.0.1:9"\ntimeout = 60000\n\n[profile.work]\nretries = 3\nrate = 2\ncolor = "never"\n');
  try {
    for (let i = 0; i < STARTUP_RUNS; i++) {
      startup.version.push(await timed(node, [cli, '--version'], {}));
      startup.command.push(await timed(node, command, { TENDERS_BASE_URL: 'http://127.0.0.1:9', TENDERS_CONFIG: join(dir, 'none.toml') }));
      startup.config.push(await timed(node, command, { TENDERS_CONFIG: config, TENDERS_PROFILE: 'work' }));
      startup.node.push(await timed(node, ['-e', '0'], {}));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return startup;
}

/** What reading and parsing the config file adds to a start, in ms. */
const configCost = (start) => (start?.config === undefined ? null : (start.config - start.command) * 1000);

/**
 * The latency case: `export --parallel 8` against `--parallel 1`, alternating; first a
 * check that both write the same bytes, then times, then peak RSS of each.
 */
async function measureParallel(url) {
  const env = { TENDERS_BASE_URL: url };
  const args = (n) => [cli, 'export', '--format', 'ndjson', '-c', LATENCY.countries, '--parallel', String(n)];
  const out = {};
  for (const n of [1, LATENCY.parallel]) {
    const file = join(tmp, `parallel-${n}.out`);
    await timed(node, args(n), env, file);
    out[n] = readFileSync(file);
    rmSync(file);
  }
  if (!out[1].equals(out[LATENCY.parallel])) throw new Error(`export --parallel ${LATENCY.parallel} wrote other bytes than --parallel 1`);
  const rows = canonicalLines(out[1].toString(), 'parallel').length;
  const seconds = { single: [], parallel: [] };
  for (let run = 1; run <= LATENCY.runs; run++) {
    seconds.single.push(await timed(node, args(1), env));
    seconds.parallel.push(await timed(node, args(LATENCY.parallel), env));
    say(`  run ${run}/${LATENCY.runs}: --parallel 1 ${seconds.single.at(-1).toFixed(3)} s, --parallel ${LATENCY.parallel} ${seconds.parallel.at(-1).toFixed(3)} s`);
  }
  const rssMb = { single: [], parallel: [] };
  for (let i = 0; i < RSS_RUNS; i++) {
    rssMb.single.push(await peakRssMb(node, args(1), env));
    rssMb.parallel.push(await peakRssMb(node, args(LATENCY.parallel), env));
  }
  return { check: `${rows} lines, byte for byte the same with --parallel 1 and ${LATENCY.parallel}`, rows, seconds, rssMb };
}

/**
 * The watch case: a full `watch` run (nothing changed: the daily run) against `export -f
 * ndjson` of the same query, alternating; then WATCH_INSERT tenders are published and
 * `watch --new-only`, each run from a copy of the baseline, against one page request.
 * Checked first: the baseline holds every tender, a run without changes prints nothing,
 * and --new-only prints exactly the new tenders, with the requests it needed.
 */
async function measureWatch(url) {
  const stateDir = join(tmp, 'watches');
  const env = { TENDERS_BASE_URL: url, TENDERS_STATE_DIR: stateDir };
  const state = join(stateDir, 'bench.watch');
  const watch = (...extra) => [cli, 'watch', 'bench', ...extra];
  const run = (args) => spawnSync(node, args, { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 26 });
  const known = () => JSON.parse(readFileSync(state, 'utf8').trimEnd().split('\n').at(-1)).end.tenders;
  const { seconds } = await watchRuns(env, known);

  const saved = join(tmp, 'baseline.watch');
  copyFileSync(state, saved);
  const res = await fetch(`${url}/__sandbox/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ insert: WATCH_INSERT, seed: 1 }) });
  if (!res.ok) throw new Error(`watch: the sandbox did not publish new tenders (${res.status})`);
  const { inserted } = await res.json();
  const newOnly = run(watch('--new-only', '-f', 'ndjson', '-v'));
  const rows = newOnly.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const printed = rows.map((row) => `${row.change} ${row.tender.id}`).sort();
  if (newOnly.status !== 0 || printed.join() !== inserted.map((id) => `new ${id}`).sort().join()) {
    throw new Error(`watch --new-only printed ${printed.length} rows, not the ${inserted.length} new tenders: ${newOnly.stderr.trim()}`);
  }
  const requests = newOnly.stderr.split('\n').filter((line) => line.startsWith('* POST')).length;
  seconds.newOnly = [];
  seconds.onePage = [];
  for (let i = 1; i <= RUNS; i++) {
    copyFileSync(saved, state);
    seconds.newOnly.push(await timed(node, watch('--new-only'), env));
    seconds.onePage.push(await timed(node, [cli, 'search', '-n', '100', '--format', 'ndjson'], env));
  }
  return {
    check: `baseline of ${known} tenders; no output without changes; --new-only printed exactly the ${inserted.length} new tenders in ${requests} requests`,
    requests,
    seconds,
  };
}

/**
 * A watch's daily run (nothing changed) against `export -f ndjson` of the same query,
 * alternating, with `env` saying where the watch keeps its state; checked first: the
 * baseline knows every tender (`known()`), and a run without changes prints nothing.
 */
async function watchRuns(env, known) {
  const watch = [cli, 'watch', 'bench'];
  const run = () => spawnSync(node, watch, { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 26 });
  const baseline = run();
  if (baseline.status !== 0) throw new Error(`watch: the baseline failed: ${baseline.stderr.trim()}`);
  // What the service holds now (a case before this one may have published tenders).
  const exported = spawnSync(node, [cli, 'export', '--format', 'ndjson'], { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 28 });
  const size = exported.stdout.split('\n').filter(Boolean).length;
  if (known() !== size) throw new Error(`watch: the baseline holds ${known()} tenders, not the ${size} an export writes`);
  const quiet = run();
  if (quiet.status !== 0 || quiet.stdout !== '' || quiet.stderr !== '') throw new Error('watch: a run without changes printed something');
  const seconds = { watch: [], export: [] };
  for (let i = 1; i <= RUNS; i++) {
    seconds.watch.push(await timed(node, watch, env));
    seconds.export.push(await timed(node, [cli, 'export', '--format', 'ndjson'], env));
    say(`  run ${i}/${RUNS}: watch ${seconds.watch.at(-1).toFixed(3)} s, export ${seconds.export.at(-1).toFixed(3)} s`);
  }
  return { seconds };
}

/**
 * The sync case, on the SIZE sandbox, into one engine's copy: a first sync into a new copy
 * against `export -f ndjson` of the same query, alternating; then re-syncs, each after
 * SYNC_CHANGES tenders changed, against the export (time and requests); then --new-only
 * after SYNC_CHANGES new tenders. Checked first: the first sync holds every tender, a
 * re-sync records exactly the changed tenders, --new-only exactly the new ones.
 * `copy`: where the copy is (`db`, a file or a postgres:// URL), `fresh()` removes it,
 * `count(sql)` reads one number from it with the engine's own shell.
 */
async function measureSync(url, copy) {
  const env = { TENDERS_BASE_URL: url };
  const { db, fresh, count } = copy;
  const sync = (...extra) => [cli, 'sync', 'bench', '--db', db, ...extra];
  const run = (args) => spawnSync(node, args, { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 26 });
  const requestsOf = (result) => result.stderr.split('\n').filter((line) => line.startsWith('* POST')).length;
  const mutate = async (body) => {
    const res = await fetch(`${url}/__sandbox/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`sync: the sandbox did not change its data (${res.status})`);
    return res.json();
  };
  const seconds = { first: [], export: [], resync: [], resyncExport: [] };
  for (let i = 1; i <= RUNS; i++) {
    fresh();
    seconds.first.push(await timed(node, sync(), env));
    seconds.export.push(await timed(node, [cli, 'export', '--format', 'ndjson'], env));
    say(`  run ${i}/${RUNS}: first sync ${seconds.first.at(-1).toFixed(3)} s, export ${seconds.export.at(-1).toFixed(3)} s`);
  }
  const held = count("SELECT count(*) FROM sync_tenders WHERE gone_at IS NULL");
  const exported = run([cli, 'export', '--format', 'ndjson', '-v']);
  const rows = exported.stdout.split('\n').filter(Boolean).length;
  if (held !== rows) throw new Error(`sync: the first sync holds ${held} tenders, the export wrote ${rows}`);

  let seed = copy.seed;
  const { updated } = await mutate({ update: SYNC_CHANGES, seed: ++seed });
  const checked = run(sync('-v'));
  const changed = count(`SELECT count(DISTINCT id) FROM changes WHERE kind = 'changed' AND run = (SELECT max(run) FROM runs)`);
  if (checked.status !== 0 || changed !== updated.length) throw new Error(`sync: a re-sync recorded ${changed} changed tenders, not ${updated.length}: ${checked.stderr.trim().split('\n').at(-1)}`);
  const requests = { resync: requestsOf(checked), export: requestsOf(exported) };
  for (let i = 1; i <= RUNS; i++) {
    await mutate({ update: SYNC_CHANGES, seed: ++seed });
    // A change empties the sandbox's response cache: an untimed walk fills it again, so the re-sync
    // and the export that follows it both meet a warm service (else the re-sync alone pays for it).
    run([cli, 'export', '--format', 'ndjson', '-o', '/dev/null']);
    seconds.resync.push(await timed(node, sync(), env));
    seconds.resyncExport.push(await timed(node, [cli, 'export', '--format', 'ndjson'], env));
    say(`  run ${i}/${RUNS}: re-sync after ${SYNC_CHANGES} changes ${seconds.resync.at(-1).toFixed(3)} s, export ${seconds.resyncExport.at(-1).toFixed(3)} s`);
  }

  const { inserted } = await mutate({ insert: SYNC_CHANGES, seed: ++seed });
  const newOnly = run(sync('--new-only', '-v'));
  const news = count(`SELECT count(*) FROM changes WHERE kind = 'new' AND run = (SELECT max(run) FROM runs)`);
  if (newOnly.status !== 0 || news !== inserted.length) throw new Error(`sync --new-only recorded ${news} new tenders, not ${inserted.length}`);
  requests.newOnly = requestsOf(newOnly);
  fresh();
  return {
    check: `first sync holds the ${held} tenders export writes; a re-sync recorded exactly the ${updated.length} changed tenders; --new-only exactly the ${inserted.length} new ones`,
    requests,
    seconds,
  };
}

/** Peak RSS of a first sync of the sandbox at `url` into a new database. */
async function measureSyncRss(url, label) {
  const rss = [];
  for (let i = 0; i < RSS_RUNS; i++) {
    const db = join(tmp, `rss-${label}-${i}.db`);
    rss.push(await peakRssMb(node, [cli, 'sync', 'bench', '--db', db], { TENDERS_BASE_URL: url }));
    for (const end of ['', '-wal', '-shm']) rmSync(`${db}${end}`, { force: true });
  }
  return rss;
}

/** The SQLite copy of the sync case: a file, read with the sqlite3 shell. */
function sqliteCopy() {
  const db = join(tmp, 'sync.db');
  return {
    db,
    fresh: () => ['', '-wal', '-shm'].forEach((end) => rmSync(`${db}${end}`, { force: true })),
    count: (sql) => Number(spawnSync('sqlite3', [db, sql], { encoding: 'utf8' }).stdout.trim()),
    seed: 100,
  };
}

/** The sync case into a throwaway PostgreSQL cluster; undefined (and one line) without PostgreSQL's binaries. */
async function measurePostgresSync(url) {
  const copy = await postgresCopy();
  if (!copy) {
    say('bench: skipped the PostgreSQL sync: no PostgreSQL binaries (apt-get install -y postgresql to measure it)');
    return undefined;
  }
  try {
    const sync = await measureSync(url, { db: copy.url, fresh: copy.fresh, count: copy.count, seed: 200 });
    copy.fresh();
    say('watch, its state in PostgreSQL: a full run against an export of the same query');
    const env = { TENDERS_BASE_URL: url, TENDERS_DB: copy.url, TENDERS_STATE_DIR: join(tmp, 'pg-watches') };
    const watch = await watchRuns(env, () => copy.count("SELECT tenders FROM watches WHERE name = 'bench'"));
    return { ...sync, watchSeconds: watch.seconds };
  } finally {
    copy.stop();
  }
}

/**
 * The rows over the copy of BIG tenders at `db` (SQLite), and over the same tenders synced
 * into a throwaway PostgreSQL cluster when the binaries are there: the procurement queries in
 * each engine, `tenders serve` under load over each (with the --cache sandbox at `url` and
 * the ceiling), its page, and the download of the whole sync from the SQLite replica.
 */
async function measureOverCopy(url, db) {
  const out = { procurement: {} };
  say('procurement: search --local --cpv 45 -c DEU, count --local --by cpv --cpv-level 2, show ID --local (SQLite)');
  out.procurement.sqlite = await measureProcurement(node, cli, db, RUNS);
  const pg = await postgresCopy();
  try {
    const copies = { sqlite: db };
    if (pg) {
      say(`procurement: the same ${BIG} tenders synced into PostgreSQL`);
      syncCopy(node, cli, url, pg.url);
      copies.postgres = pg.url;
      out.procurement.postgres = await measureProcurement(node, cli, pg.url, RUNS);
    } else say('bench: skipped the PostgreSQL procurement and serve rows: no PostgreSQL binaries');
    say(`serve: tenders serve at ${CONNECTIONS} connections (wrk), ${SERVE.rounds} alternating rounds of ${SERVE.seconds} s: first page, full text, the page`);
    out.serve = await measureServe({ node, cli, sandboxUrl: url, copies, ...SERVE, dir: tmp, say });
  } finally {
    pg?.stop();
  }
  say(`download: GET /syncs/bench/tenders.ndjson of ${BIG} tenders against export --local, and the server's peak RSS against ${SIZE}`);
  out.download = await measureDownload({ node, cli, db, sandboxBin, small: SIZE, runs: RUNS, rssRuns: RSS_RUNS, dir: tmp, say });
  return out;
}

/** The ratios of the rows over the copy (measureOverCopy), null where a row was not measured. */
function copyRatios(c) {
  const p = (engine, key) => c?.procurement[engine]?.[key] ?? null;
  const s = typeof c?.serve === 'object' ? c.serve : undefined;
  const d = typeof c?.download === 'object' ? c.download : undefined;
  const serve = (engine) => s?.[engine] && { sandbox: s[engine].rps / s.sandbox.rps, p99: s[engine].p99Ms, fullText: s[`${engine}FullText`].p99Ms, page: s[`${engine}Page`].p99Ms };
  const lite = serve('sqlite');
  const pg = serve('postgres');
  return {
    cpvSearchMs: p('sqlite', 'cpvSearchMs'),
    cpvCountBy: p('sqlite', 'cpvCountSeconds'),
    showMs: p('sqlite', 'showMs'),
    pgCpvSearchMs: p('postgres', 'cpvSearchMs'),
    pgCpvCountBy: p('postgres', 'cpvCountSeconds'),
    pgShowMs: p('postgres', 'showMs'),
    serveSandbox: lite?.sandbox ?? null,
    serveP99Ms: lite?.p99 ?? null,
    serveCeiling: s ? s.sqlite.rps / s.ceiling.rps : null,
    serveColdSandbox: s?.sqliteCold ? s.sqliteCold.rps / s.sandbox.rps : null,
    pgServeColdSandbox: s?.postgresCold ? s.postgresCold.rps / s.sandbox.rps : null,
    serveFullTextP99Ms: lite?.fullText ?? null,
    pageP99Ms: lite?.page ?? null,
    pgServeSandbox: pg?.sandbox ?? null,
    pgServeP99Ms: pg?.p99 ?? null,
    pgServeFullTextP99Ms: pg?.fullText ?? null,
    pgPageP99Ms: pg?.page ?? null,
    downloadExport: d ? d.seconds.download / d.seconds.export : null,
    downloadRss: d ? d.rssMb.big / d.rssMb.small : null,
  };
}

const passes = (value, t) =>
  value === null || t === undefined ? null : (t.max === undefined || value <= t.max) && (t.min === undefined || value >= t.min) && (t.below === undefined || value < t.below);

async function main() {
  checkBuild();
  if (startupOnly) return startupBench();
  const loadStart = loadavg(); // the 1, 5 and 15 min load averages (uptime's), at the start and the end
  say(`tenders bench: ${SIZE} tenders, ${RUNS} alternating runs each${quick ? ' (quick)' : ''}${exportsOnly ? ' (exports only)' : ''}${syncOnly ? ' (sync only)' : ''}${serveOnly ? ' (serve only)' : ''}`);
  const settings = { quick, exportsOnly, syncOnly, serveOnly, size: SIZE, big: BIG, runs: RUNS, startupRuns: STARTUP_RUNS, rssRuns: RSS_RUNS, rssMethod };
  const runs = {};

  const sandbox = await startSandbox(sandboxBin, SIZE);
  settings.sandboxCache = sandbox.cache;
  if (!sandbox.cache) say('bench: the sandbox does not accept --cache; measuring without it');
  const env = { TENDERS_BASE_URL: sandbox.url, NO_COLOR: '1' };
  const formats = syncOnly || serveOnly ? [] : exportFormats();
  settings.formats = formats;
  const contenders = { floor: [node, [join(root, 'bench/floor.js')]] };
  for (const format of formats) contenders[format] = [node, [cli, 'export', '--format', format]];
  if (exportsOnly) say('bench: --exports: no curl + jq, watch, latency or start-up cases');
  else if (hasCommand('curl') && hasCommand('jq')) contenders.curljq = ['bash', [join(root, 'bench/curl-jq.sh')]];
  else say('bench: skipped curl + jq: no curl/jq');
  let checks;
  let watchCase;
  let localCase;
  let syncCase;
  let pgCase;
  let copyCase;
  try {
    if (serveOnly) checks = {};
    else if (syncOnly) {
      say('warming the sandbox');
      await timed(node, [cli, 'export', '--format', 'ndjson'], env);
      checks = {};
    } else {
      say('checking every contender\'s output (and warming the sandbox)');
      checks = await verify(contenders, env);
      runs.seconds = await measureTimes(contenders, env);
      say('peak RSS');
      runs.rssMbSmall = await measureRss(sandbox.url);
    }
    if (!exportsOnly && !serveOnly) {
      if (!syncOnly) {
        say(`watch: a full run against an export of the same query, then --new-only after ${WATCH_INSERT} new tenders`);
        watchCase = await measureWatch(sandbox.url); // it publishes tenders: only the sync cases follow
      }
      say(`sync: a first sync and re-syncs after ${SYNC_CHANGES} changes against an export of the same query, then --new-only`);
      say('sync into PostgreSQL: the same, into a throwaway cluster');
      pgCase = await measurePostgresSync(sandbox.url);
      say('sync into SQLite');
      syncCase = await measureSync(sandbox.url, sqliteCopy());
      if (!syncOnly) runs.syncRssMbSmall = await measureSyncRss(sandbox.url, 'small');
    }
  } finally {
    await sandbox.stop();
  }
  if (watchCase) {
    checks.watch = watchCase.check;
    runs.watchSeconds = watchCase.seconds;
    settings.watch = { insert: WATCH_INSERT, newOnlyRequests: watchCase.requests };
  }
  if (syncCase) {
    checks.sync = syncCase.check;
    runs.syncSeconds = syncCase.seconds;
    settings.sync = { changes: SYNC_CHANGES, requests: syncCase.requests };
  }
  if (pgCase) {
    checks.pgSync = pgCase.check;
    runs.pgSyncSeconds = pgCase.seconds;
    runs.pgWatchSeconds = pgCase.watchSeconds;
    settings.pgSync = { changes: SYNC_CHANGES, requests: pgCase.requests };
  }

  if (!syncOnly) {
    const big = await startSandbox(sandboxBin, BIG, { cache: sandbox.cache });
    try {
      await timed(node, [join(root, 'bench/floor.js')], { TENDERS_BASE_URL: big.url }); // warm its cache
      if (!serveOnly) runs.rssMbBig = await measureRss(big.url);
      if (!exportsOnly) {
        say(`local: a copy of ${BIG} tenders by tenders sync, then search --local (two words) and count --local --by buyer.name`);
        const db = join(tmp, 'local', 'tenders.db');
        if (syncCopy(node, cli, big.url, db)) {
          localCase = await measureLocal(node, cli, db, RUNS);
          copyCase = await measureOverCopy(big.url, db);
        } else say('bench: skipped the local queries: this build has no tenders sync');
      }
      if (!exportsOnly && !serveOnly) runs.syncRssMbBig = await measureSyncRss(big.url, 'big');
    } finally {
      await big.stop();
    }
  }
  if (!exportsOnly && !syncOnly && !serveOnly) {
    say(`latency: ${LATENCY.ms} ms, export of ${LATENCY.countries.split(',').length} countries, --parallel 1 and ${LATENCY.parallel}`);
    const slow = await startSandbox(sandboxBin, LATENCY.size, { cache: sandbox.cache, extra: ['--latency', String(LATENCY.ms)] });
    let latency;
    try {
      latency = await measureParallel(slow.url);
    } finally {
      await slow.stop();
    }
    checks.parallel = latency.check;
    runs.latencySeconds = latency.seconds;
    runs.latencyRssMb = latency.rssMb;
    settings.latency = { ...LATENCY, rows: latency.rows };
    say('start-up');
    runs.startupSeconds = await measureStartup();
  }

  // A case --exports or --sync skips has no medians, and its ratios are null.
  const medians = (values) => values && Object.fromEntries(Object.entries(values).map(([name, v]) => [name, median(v)]));
  const ratio = (a, b) => (a === undefined || b === undefined ? null : a / b);
  const m = medians(runs.seconds) ?? {};
  const rssSmall = runs.rssMbSmall && median(runs.rssMbSmall.ndjson);
  const rssBig = runs.rssMbBig && median(runs.rssMbBig.ndjson);
  const csvRss = runs.rssMbSmall && { [SIZE]: median(runs.rssMbSmall.csv), [BIG]: median(runs.rssMbBig.csv) };
  const startup = medians(runs.startupSeconds);
  const lat = medians(runs.latencySeconds);
  const latRss = medians(runs.latencyRssMb);
  const w = medians(runs.watchSeconds);
  const sy = medians(runs.syncSeconds);
  const pg = medians(runs.pgSyncSeconds);
  const pgw = medians(runs.pgWatchSeconds);
  const copyMedians = copyCase && {
    procurement: copyCase.procurement,
    serve: copyCase.serve?.medians ?? 'skipped: no wrk',
    download: copyCase.download.served ? { seconds: medians(copyCase.download.seconds), rssMb: copyCase.download.rssMb } : 'not served yet',
  };
  const syncRss = runs.syncRssMbSmall && { [SIZE]: median(runs.syncRssMbSmall), [BIG]: median(runs.syncRssMbBig) };
  const results = {
    date: new Date().toISOString(),
    machine: { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: { start: loadStart, end: loadavg() } },
    settings,
    checks,
    medians: {
      seconds: m,
      rssMb: { [SIZE]: rssSmall, [BIG]: rssBig }, // of the ndjson export
      csvRssMb: csvRss,
      floorRssMb: runs.rssMbSmall ? { [SIZE]: median(runs.rssMbSmall.floor), [BIG]: median(runs.rssMbBig.floor) } : null,
      startupSeconds: startup ?? null,
      latencySeconds: lat ?? null,
      latencyRssMb: latRss ?? null,
      watchSeconds: w ?? null,
      syncSeconds: sy ?? null,
      syncRssMb: syncRss ?? null,
      pgSyncSeconds: pg ?? null,
      pgWatchSeconds: pgw ?? null,
      copy: copyMedians ?? null,
    },
    ratios: {
      ...Object.fromEntries(formats.map((format) => [`${format}Floor`, m[format] / m.floor])),
      curljqNdjson: m.curljq === undefined ? null : m.curljq / m.ndjson,
      rss200k50k: ratio(rssBig, rssSmall),
      csvRss200k50k: ratio(csvRss?.[BIG], csvRss?.[SIZE]),
      rssMb200k: rssBig ?? null,
      startupNode: ratio(startup?.version, startup?.node),
      startupCommand: ratio(startup?.command, startup?.node),
      configStartupMs: configCost(startup),
      parallelSpeedup: ratio(lat?.single, lat?.parallel),
      rssParallel: ratio(latRss?.parallel, latRss?.single),
      watchExport: ratio(w?.watch, w?.export),
      newOnlyRequests: watchCase?.requests ?? null,
      newOnlyPage: ratio(w?.newOnly, w?.onePage),
      localQueryMs: localCase?.queryMs ?? null,
      localCountBy: localCase?.countBySeconds ?? null,
      syncFirstExport: ratio(sy?.first, sy?.export),
      resyncExport: ratio(sy?.resync, sy?.resyncExport),
      resyncRequests: ratio(syncCase?.requests.resync, syncCase?.requests.export),
      syncNewOnlyRequests: syncCase?.requests.newOnly ?? null,
      syncRss200k50k: ratio(syncRss?.[BIG], syncRss?.[SIZE]),
      pgSyncFirstExport: ratio(pg?.first, pg?.export),
      pgResyncExport: ratio(pg?.resync, pg?.resyncExport),
      pgSyncNewOnlyRequests: pgCase?.requests.newOnly ?? null,
      pgWatchExport: ratio(pgw?.watch, pgw?.export),
      ...copyRatios(copyMedians),
    },
    targets: TARGETS,
    runs,
  };
  if (copyCase) {
    results.checks.procurement = Object.fromEntries(Object.entries(copyCase.procurement).map(([engine, p]) => [engine, p.check]));
    results.checks.serve = copyCase.serve?.check ?? 'skipped: no wrk';
    results.checks.download = copyCase.download.check ?? 'not served yet';
    results.settings.serve = { ...SERVE, connections: CONNECTIONS, loadGenerator: 'wrk -t 2 --latency' };
    results.runs.procurement = Object.fromEntries(Object.entries(copyCase.procurement).map(([engine, p]) => [engine, p.runs]));
    results.runs.serve = copyCase.serve?.runs;
    results.runs.download = copyCase.download.served ? { seconds: copyCase.download.seconds, rssMb: copyCase.download.rssMb } : undefined;
  }
  if (localCase) {
    results.checks.local = localCase.check;
    results.runs.local = localCase.runs;
    results.machine.uptimeSeconds = localCase.uptime;
  }
  results.pass = Object.fromEntries(Object.entries(results.ratios).map(([key, value]) => [key, passes(value, TARGETS[key])]));
  report(results);

  const dir = join(root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const json = `${JSON.stringify(results, null, 2)}\n`;
  const partial = quick || exportsOnly || syncOnly || serveOnly; // latest.json is a complete run
  const name = `${results.date.replace(/[:.]/g, '-')}${quick ? '-quick' : ''}${exportsOnly ? '-exports' : ''}${syncOnly ? '-sync' : ''}${serveOnly ? '-serve' : ''}.json`;
  writeFileSync(join(dir, name), json);
  if (!partial) writeFileSync(join(dir, 'latest.json'), json);
  say(`\nwrote bench/results/${name}${partial ? '' : ' and bench/results/latest.json'}`);
}

/** --startup: the start-up rows alone, with the load the machine was under (a loaded machine blurs them). */
async function startupBench() {
  const load = () => loadavg()[0].toFixed(2);
  say(`tenders bench --startup: ${STARTUP_RUNS} alternating runs of each (load average ${load()})`);
  const runs = { startupSeconds: await measureStartup() };
  const start = Object.fromEntries(Object.entries(runs.startupSeconds).map(([name, v]) => [name, median(v)]));
  const ratios = { startupNode: start.version / start.node, startupCommand: start.command / start.node, configStartupMs: configCost(start) };
  const results = {
    date: new Date().toISOString(),
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, loadAverage: loadavg() },
    settings: { startupOnly, startupRuns: STARTUP_RUNS },
    medians: { startupSeconds: start },
    ratios,
    targets: { startupNode: TARGETS.startupNode, startupCommand: TARGETS.startupCommand, configStartupMs: TARGETS.configStartupMs },
    pass: Object.fromEntries(Object.entries(ratios).map(([key, value]) => [key, passes(value, TARGETS[key])])),
    runs,
  };
  const ms = (x) => `${(x * 1000).toFixed(1)} ms`;
  for (const [name, key, of] of [['tenders --version / node -e 0', 'startupNode', 'version'], ['tenders --dry-run search -c DEU / node -e 0', 'startupCommand', 'command']]) {
    console.log(`${name.padEnd(44)} ${`${ms(start[of])} / ${ms(start.node)}`.padEnd(22)} ${ratios[key].toFixed(2)}  ${targetText(TARGETS[key])}  ${results.pass[key] ? 'PASS' : 'FAIL'}`);
  }
  const config = `${ms(start.config)} - ${ms(start.command)}`;
  console.log(`${'the config file: with / without, ms'.padEnd(44)} ${config.padEnd(22)} ${ratios.configStartupMs.toFixed(1)}  ${targetText(TARGETS.configStartupMs)}  ${results.pass.configStartupMs ? 'PASS' : 'FAIL'}`);
  console.log(`load average ${load()} at the end; ${process.version}, ${cpus().length} × ${cpus()[0]?.model}`);
  const name = `${results.date.replace(/[:.]/g, '-')}-startup.json`;
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results', name), `${JSON.stringify(results, null, 2)}\n`);
  say(`wrote bench/results/${name}`);
}

const targetText = (t) => (t === undefined ? '-' : t.max !== undefined ? `≤ ${t.max}` : t.min !== undefined ? `≥ ${t.min}` : `< ${t.below}`);

/** The report's rows over the copy: procurement, serve, page, download (rows as report() takes them). */
function copyRows(r) {
  const { big } = r.settings;
  const c = r.medians.copy ?? undefined;
  const ms = (x) => `${x.toFixed(1)} ms`;
  const k = `${big / 1000}k`;
  const rows = [];
  for (const [engine, label, pre] of [['sqlite', '', ''], ['postgres', 'PostgreSQL: ', 'pg']]) {
    const p = c?.procurement[engine];
    const key = (name) => (pre ? `${pre}${name[0].toUpperCase()}${name.slice(1)}` : name);
    rows.push(
      [`${label}search --local --cpv 45 -c DEU, ${k}: query ms`, p && (() => ms(p.cpvSearchMs)), key('cpvSearchMs')],
      [`${label}count --local --by cpv --cpv-level 2, ${k}`, p && (() => `${p.cpvCountSeconds.toFixed(3)} s`), key('cpvCountBy')],
      [`${label}show ID --local - start-up, ms`, p && (() => `${ms(median(p.runs.showSeconds) * 1000)} - ${ms(median(p.runs.startupSeconds) * 1000)}`), key('showMs')],
    );
  }
  const s = c?.serve;
  const skip = typeof s === 'string' ? s : undefined;
  const served = (engine, f) => c && (() => skip ?? (s[engine] ? f(s[engine]) : 'skipped (no PostgreSQL)'));
  const conn = r.settings.serve?.connections ?? CONNECTIONS;
  for (const [engine, label, pre] of [['sqlite', '', 'serve'], ['postgres', 'PostgreSQL: ', 'pgServe']]) {
    rows.push(
      [`${label}serve, first page, ${conn} conn: req/s / sandbox`, served(engine, (x) => `${x.rps.toFixed(0)} / ${s.sandbox.rps.toFixed(0)} req/s`), `${pre}Sandbox`],
      [`${label}serve, first page: p99`, served(engine, (x) => `p50 ${ms(x.p50Ms)}, p99 ${ms(x.p99Ms)}`), `${pre}P99Ms`],
    );
    rows.push([`${label}serve --cache-mb 0, first page: req/s / sandbox`, served(`${engine}Cold`, (x) => `${x.rps.toFixed(0)} / ${s.sandbox.rps.toFixed(0)} req/s, p99 ${ms(x.p99Ms)}`), `${pre}ColdSandbox`]);
    if (engine === 'sqlite') rows.push(['serve / bare node:http, same bytes: req/s', served('ceiling', (x) => `${s.sqlite.rps.toFixed(0)} / ${x.rps.toFixed(0)} req/s`), 'serveCeiling']);
    rows.push(
      [`${label}serve, 2 words, exactTotal: p99`, served(`${engine}FullText`, (x) => `p50 ${ms(x.p50Ms)}, p99 ${ms(x.p99Ms)}`), `${pre}FullTextP99Ms`],
      [`${label}page GET /?q=2 words, 25 rows: p99`, served(`${engine}Page`, (x) => `p50 ${ms(x.p50Ms)}, p99 ${ms(x.p99Ms)}`), engine === 'sqlite' ? 'pageP99Ms' : 'pgPageP99Ms'],
    );
  }
  const d = c?.download;
  const notServed = typeof d === 'string' ? d : undefined;
  rows.push(
    [`GET /syncs/…/tenders.ndjson ${k} / export --local`, d && (() => notServed ?? `${d.seconds.download.toFixed(3)} s / ${d.seconds.export.toFixed(3)} s`), 'downloadExport'],
    [`serve peak RSS after it, ${k} / ${r.settings.size / 1000}k`, d && (() => notServed ?? `${d.rssMb.big.toFixed(1)} MB / ${d.rssMb.small.toFixed(1)} MB`), 'downloadRss'],
  );
  return rows;
}

function report(r) {
  const s = r.medians.seconds;
  const { rssMb: rss, floorRssMb } = r.medians;
  const { size, big } = r.settings;
  const sec = (x) => `${x.toFixed(3)} s`;
  const csvRss = r.medians.csvRssMb;
  const { startupSeconds: start, latencySeconds: lat, latencyRssMb: latRss, watchSeconds: w } = r.medians;
  const { latency = LATENCY, watch = { insert: WATCH_INSERT }, sync = { changes: SYNC_CHANGES } } = r.settings;
  const { syncSeconds: sy, syncRssMb: syncRss, pgSyncSeconds: pg, pgWatchSeconds: pgw } = r.medians;
  const pgSync = r.settings.pgSync;
  const exported = s.floor !== undefined;
  // Details are functions: a case --exports or --sync skipped has no medians to show.
  const rows = [
    ...r.settings.formats.map((format) => [`${format} export / floor`, () => `${sec(s[format])} / ${sec(s.floor)}`, `${format}Floor`]),
    ['curl+jq / ndjson export', exported && (() => (s.curljq === undefined ? (r.settings.exportsOnly ? 'skipped (--exports)' : 'skipped: no curl/jq') : `${sec(s.curljq)} / ${sec(s.ndjson)}`)), 'curljqNdjson'],
    [`ndjson peak RSS ${big / 1000}k / ${size / 1000}k`, exported && (() => `${rss[big].toFixed(1)} MB / ${rss[size].toFixed(1)} MB`), 'rss200k50k'],
    [`csv peak RSS ${big / 1000}k / ${size / 1000}k`, exported && (() => `${csvRss[big].toFixed(1)} MB / ${csvRss[size].toFixed(1)} MB`), 'csvRss200k50k'],
    [`ndjson peak RSS ${big / 1000}k, MB`, exported && (() => `${rss[big].toFixed(1)} MB`), 'rssMb200k'],
    ['tenders --version / node -e 0', start && (() => `${(start.version * 1000).toFixed(1)} ms / ${(start.node * 1000).toFixed(1)} ms`), 'startupNode'],
    ['tenders --dry-run search -c DEU / node -e 0', start && (() => `${(start.command * 1000).toFixed(1)} ms / ${(start.node * 1000).toFixed(1)} ms`), 'startupCommand'],
    ['the config file: with / without, ms', start?.config !== undefined && (() => `${(start.config * 1000).toFixed(1)} ms - ${(start.command * 1000).toFixed(1)} ms`), 'configStartupMs'],
    [`--parallel 1 / ${latency.parallel}, ${latency.ms} ms away`, lat && (() => `${sec(lat.single)} / ${sec(lat.parallel)}`), 'parallelSpeedup'],
    [`peak RSS --parallel ${latency.parallel} / 1`, latRss && (() => `${latRss.parallel.toFixed(1)} MB / ${latRss.single.toFixed(1)} MB`), 'rssParallel'],
    ['watch (full run) / ndjson export', w && (() => `${sec(w.watch)} / ${sec(w.export)}`), 'watchExport'],
    [`watch --new-only, ${watch.insert} new: requests`, w && (() => `${r.ratios.newOnlyRequests} requests`), 'newOnlyRequests'],
    ['watch --new-only / one page request', w && (() => `${sec(w.newOnly)} / ${sec(w.onePage)}`), 'newOnlyPage'],
    [`search --local, 2 words, ${big / 1000}k: query ms`, r.ratios.localQueryMs !== null && (() => `${r.ratios.localQueryMs.toFixed(1)} ms`), 'localQueryMs'],
    [`count --local --by buyer.name, ${big / 1000}k`, r.ratios.localCountBy !== null && (() => sec(r.ratios.localCountBy)), 'localCountBy'],
    [`first sync ${size / 1000}k / ndjson export`, sy && (() => `${sec(sy.first)} / ${sec(sy.export)}`), 'syncFirstExport'],
    [`re-sync, ${sync.changes} changed / export`, sy && (() => `${sec(sy.resync)} / ${sec(sy.resyncExport)}`), 'resyncExport'],
    ['re-sync requests / export requests', sy && (() => `${sync.requests.resync} / ${sync.requests.export}`), 'resyncRequests'],
    [`sync --new-only, ${sync.changes} new: requests`, sy && (() => `${r.ratios.syncNewOnlyRequests} requests`), 'syncNewOnlyRequests'],
    [`sync peak RSS ${big / 1000}k / ${size / 1000}k`, syncRss && (() => `${syncRss[big].toFixed(1)} MB / ${syncRss[size].toFixed(1)} MB`), 'syncRss200k50k'],
    [`PostgreSQL: first sync ${size / 1000}k / export`, pg && (() => `${sec(pg.first)} / ${sec(pg.export)}`), 'pgSyncFirstExport'],
    [`PostgreSQL: re-sync, ${sync.changes} changed / export`, pg && (() => `${sec(pg.resync)} / ${sec(pg.resyncExport)}`), 'pgResyncExport'],
    [`PostgreSQL: sync --new-only, ${sync.changes} new`, pg && (() => `${pgSync.requests.newOnly} requests`), 'pgSyncNewOnlyRequests'],
    ['PostgreSQL: watch (full run) / export', pgw && (() => `${sec(pgw.watch)} / ${sec(pgw.export)}`), 'pgWatchExport'],
    ...copyRows(r),
  ];
  const skipped = r.settings.exportsOnly ? 'skipped (--exports)' : r.settings.syncOnly ? 'skipped (--sync)' : r.settings.serveOnly ? 'skipped (--serve)' : 'skipped (no PostgreSQL)';
  const line = (cells) => console.log(cells.map((c, i) => String(c).padEnd([36, 27, 8, 8, 0][i])).join(' ').trimEnd());
  console.log(`\ntenders bench, ${size} tenders (${r.date})`);
  line(['measure', 'medians', 'ratio', 'target', 'result']);
  for (const [name, detail, key] of rows) {
    const value = r.ratios[key];
    const verdict = r.pass[key] === null ? 'n/a' : r.pass[key] ? 'PASS' : 'FAIL';
    const shown = detail ? detail() : skipped;
    line([name, shown, value === null ? '-' : Number.isInteger(value) ? String(value) : value.toFixed(2), targetText(r.targets[key]), verdict]);
  }
  const spread = Object.entries(r.runs.seconds ?? {}).map(([n, t]) => `${n} ${Math.min(...t).toFixed(3)}–${Math.max(...t).toFixed(3)} s`);
  if (spread.length) console.log(`\nruns (min–max): ${spread.join(', ')}`);
  if (lat) console.log(`latency case: ${latency.rows} tenders of ${latency.countries.split(',').length} countries from ${latency.size} (--latency ${latency.ms}), ${latency.runs} alternating runs`);
  if (floorRssMb) console.log(`floor peak RSS, for reference: ${floorRssMb[size].toFixed(1)} MB at ${size / 1000}k, ${floorRssMb[big].toFixed(1)} MB at ${big / 1000}k`);
  if (pg) console.log(`PostgreSQL runs (s): first ${r.runs.pgSyncSeconds.first.map((t) => t.toFixed(2)).join(' ')}; export ${r.runs.pgSyncSeconds.export.map((t) => t.toFixed(2)).join(' ')}`);
  const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
  console.log(`load average (1, 5, 15 min): ${load(r.machine.loadAverage.start)} at the start, ${load(r.machine.loadAverage.end)} at the end`);
  console.log(`${r.machine.node}, ${r.machine.cpus} × ${r.machine.cpuModel}; sandbox --cache: ${r.settings.sandboxCache ? 'yes' : 'NO (not accepted)'}; RSS by ${r.settings.rssMethod}`);
}

// A Ctrl-C or kill of the bench must not leave sandboxes running.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.once(signal, () => {
    stopAll();
    stopClusters();
    rmSync(tmp, { recursive: true, force: true });
    process.exit(code);
  });
}

try {
  await main();
} catch (err) {
  console.error(`bench: ${err.message}`);
  process.exitCode = 1;
} finally {
  stopAll();
  stopClusters();
  rmSync(tmp, { recursive: true, force: true });
}
