#!/usr/bin/env node
// npm run bench [-- --quick]: the export's cost against a floor and against curl + jq,
// its memory as the export grows, and start-up, measured in one run (medians of
// alternating runs, so a noisy neighbour hurts every contender alike).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const SIZE = quick ? 20_000 : 50_000;
const BIG = quick ? 80_000 : 200_000;
const RUNS = quick ? 3 : 5;
const STARTUP_RUNS = quick ? 9 : 15;
const RSS_RUNS = quick ? 1 : 3;
const TARGETS = {
  ndjsonFloor: { max: 1.15 },
  csvFloor: { max: 1.35 },
  curljqNdjson: { min: 3 },
  rss200k50k: { max: 1.2 },
  rssMb200k: { max: 150 },
  startupNode: { max: 1.6 },
};

const tmp = mkdtempSync(join(tmpdir(), 'tenders-bench-'));
const children = new Set();
const node = process.execPath;
const cli = join(root, 'bin/tenders.js');
const haveCurlJq = ['curl', 'jq'].every((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0);
const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

async function startSandbox(size) {
  const child = spawn(node, [join(root, 'bin/tenders-sandbox.js'), '--size', String(size), '--seed', '1', '--cache'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const url = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/** Runs a command with stdout to `out` (a path, default /dev/null); resolves to seconds. */
function timed(cmd, args, env, out = '/dev/null') {
  return new Promise((resolve, reject) => {
    const fd = openSync(out, 'w');
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', fd, 'pipe'] });
    children.add(child);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      children.delete(child);
      closeSync(fd);
      if (code === 0) resolve(seconds);
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr.trim()}`));
    });
  });
}

/** Peak resident memory in MB of a command, by /usr/bin/time or /proc VmHWM polling. */
async function peakRssMb(cmd, args, env) {
  if (timeBin) {
    const r = spawnSync(timeBin, ['-f', '%M', cmd, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
    return Number(r.stderr.trim().split('\n').at(-1)) / 1024;
  }
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  let peak = 0;
  const poll = setInterval(() => {
    try {
      const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      if (kb) peak = Math.max(peak, Number(kb) / 1024);
    } catch {}
  }, 10);
  await new Promise((resolve) => child.on('exit', resolve));
  clearInterval(poll);
  return peak;
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Every contender once, checked for the same output, before any timing. */
function checkOutputs(contenders, env) {
  const outputs = {};
  return (async () => {
    for (const [name, [cmd, args]] of Object.entries(contenders)) {
      const file = join(tmp, `${name}.out`);
      await timed(cmd, args, env, file);
      outputs[name] = readFileSync(file, 'utf8');
    }
    const ids = (text) => text.trimEnd().split('\n').map((line) => JSON.parse(line).id);
    const floorIds = ids(outputs.floor);
    if (floorIds.length !== SIZE) throw new Error(`the floor wrote ${floorIds.length} lines, not ${SIZE}`);
    for (const name of ['ndjson', 'curljq'].filter((n) => outputs[n] !== undefined)) {
      if (ids(outputs[name]).join() !== floorIds.join()) throw new Error(`${name} did not write the floor's tenders in order`);
    }
    const csvRows = spawnSync('python3', ['-c', 'import csv,sys; print(sum(1 for _ in csv.reader(sys.stdin)))'], { input: outputs.csv, encoding: 'utf8' });
    if (csvRows.status === 0 && Number(csvRows.stdout) !== SIZE + 1) throw new Error(`the CSV has ${csvRows.stdout.trim()} records, not ${SIZE + 1}`);
  })();
}

async function main() {
  console.log(`tenders bench: ${SIZE.toLocaleString('en-US')} tenders, ${RUNS} alternating runs each${quick ? ' (quick)' : ''}`);
  const sandbox = await startSandbox(SIZE);
  const env = { TENDERS_BASE_URL: sandbox.url, NO_COLOR: '1' };
  const contenders = {
    floor: [node, [join(root, 'bench/floor.js')]],
    ndjson: [node, [cli, 'export', '--format', 'ndjson']],
    csv: [node, [cli, 'export', '--format', 'csv']],
    ...(haveCurlJq ? { curljq: ['bash', [join(root, 'bench/curl-jq.sh')]] } : {}),
  };
  await checkOutputs(contenders, env); // also warms the sandbox's cache
  const times = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const [name, [cmd, args]] of Object.entries(contenders)) times[name].push(await timed(cmd, args, env));
    process.stderr.write(`  run ${run + 1}/${RUNS}\r`);
  }

  const rss50 = [];
  for (let i = 0; i < RSS_RUNS; i++) rss50.push(await peakRssMb(node, [cli, 'export', '--format', 'ndjson'], env));
  sandbox.stop();
  const big = await startSandbox(BIG);
  const bigEnv = { TENDERS_BASE_URL: big.url, NO_COLOR: '1' };
  await timed(node, [cli, 'export', '--format', 'ndjson'], bigEnv); // warm its cache
  const rss200 = [];
  for (let i = 0; i < RSS_RUNS; i++) rss200.push(await peakRssMb(node, [cli, 'export', '--format', 'ndjson'], bigEnv));
  big.stop();

  const startup = { version: [], node: [] };
  for (let i = 0; i < STARTUP_RUNS; i++) {
    startup.version.push(await timed(node, [cli, '--version'], {}));
    startup.node.push(await timed(node, ['-e', '0'], {}));
  }

  const m = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
  const results = {
    date: new Date().toISOString(),
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30) },
    settings: { size: SIZE, big: BIG, runs: RUNS, startupRuns: STARTUP_RUNS, rssRuns: RSS_RUNS, rssMethod: timeBin ? '/usr/bin/time %M' : '/proc VmHWM' },
    medians: {
      seconds: m,
      rssMb: { [SIZE]: median(rss50), [BIG]: median(rss200) },
      startupSeconds: { version: median(startup.version), node: median(startup.node) },
    },
    ratios: {
      ndjsonFloor: m.ndjson / m.floor,
      csvFloor: m.csv / m.floor,
      curljqNdjson: haveCurlJq ? m.curljq / m.ndjson : null,
      rss200k50k: median(rss200) / median(rss50),
      rssMb200k: median(rss200),
      startupNode: median(startup.version) / median(startup.node),
    },
    targets: TARGETS,
  };
  results.pass = Object.fromEntries(
    Object.entries(results.ratios).map(([key, value]) => {
      const t = TARGETS[key];
      return [key, value === null ? null : (t.max === undefined || value <= t.max) && (t.min === undefined || value >= t.min)];
    }),
  );
  report(results);
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  const json = `${JSON.stringify(results, null, 2)}\n`;
  writeFileSync(join(root, 'bench/results', `${results.date.replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`), json);
  if (!quick) writeFileSync(join(root, 'bench/results/latest.json'), json);
}

function report(r) {
  const s = r.medians.seconds;
  const rows = [
    ['ndjson export / floor', `${s.ndjson.toFixed(3)} s / ${s.floor.toFixed(3)} s`, r.ratios.ndjsonFloor, 'ndjsonFloor', '≤ 1.15'],
    ['csv export / floor', `${s.csv.toFixed(3)} s / ${s.floor.toFixed(3)} s`, r.ratios.csvFloor, 'csvFloor', '≤ 1.35'],
    ['curl+jq / ndjson export', s.curljq ? `${s.curljq.toFixed(3)} s / ${s.ndjson.toFixed(3)} s` : 'skipped: no curl/jq', r.ratios.curljqNdjson, 'curljqNdjson', '≥ 3'],
    [`peak RSS ${r.settings.big / 1000}k / ${r.settings.size / 1000}k`, `${r.medians.rssMb[r.settings.big].toFixed(0)} MB / ${r.medians.rssMb[r.settings.size].toFixed(0)} MB`, r.ratios.rss200k50k, 'rss200k50k', '≤ 1.2'],
    [`peak RSS at ${r.settings.big / 1000}k (MB)`, '', r.ratios.rssMb200k, 'rssMb200k', '< 150'],
    ['tenders --version / node -e 0', `${(r.medians.startupSeconds.version * 1000).toFixed(0)} ms / ${(r.medians.startupSeconds.node * 1000).toFixed(0)} ms`, r.ratios.startupNode, 'startupNode', '≤ 1.6'],
  ];
  console.log('');
  console.log(`${'measure'.padEnd(32)}${'medians'.padEnd(28)}${'ratio'.padEnd(9)}${'target'.padEnd(9)}result`);
  for (const [name, detail, value, key, target] of rows) {
    const verdict = r.pass[key] === null ? 'n/a' : r.pass[key] ? 'PASS' : 'FAIL';
    console.log(`${name.padEnd(32)}${detail.padEnd(28)}${(value === null ? '-' : value.toFixed(2)).padEnd(9)}${target.padEnd(9)}${verdict}`);
  }
  console.log(`\n${r.machine.node}, ${r.machine.cpus} × ${r.machine.cpuModel}; RSS by ${r.settings.rssMethod}`);
}

try {
  await main();
} catch (err) {
  console.error(`bench: ${err.message}`);
  process.exitCode = 1;
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
