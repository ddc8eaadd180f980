// The serve rows (issues 38 and 39), over the bench's copy of BIG tenders: `tenders serve`
// answering the first page of POST /api/v1/tenders/search (default sort) at 16 connections,
// against the sandbox's --cache server answering the same request and against a bare
// node:http server answering the same bytes from memory (bench/ceiling.js, the ceiling);
// a two-word full-text `q` with exactTotal; the search page `GET /?q=...`; each in every
// engine the bench has a copy in. wrk is the load generator (bench/wrk.js); contenders
// alternate round by round and the medians of the rounds are reported. Then the whole
// download `GET /syncs/bench/tenders.ndjson` against `tenders export --local -f ndjson --sync
// bench`, and the server's peak RSS serving it from 200 000 tenders against 50 000.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { syncCopy } from './local.js';
import { processPeakMb, startSandbox, startServer, timed } from './procs.js';
import { hasWrk, wrk } from './wrk.js';

export const CONNECTIONS = 16;
export const SERVE_WORDS = 'cleaning services';
const SEARCH = '/api/v1/tenders/search';
const FIRST_PAGE = '{}';
const FULL_TEXT = JSON.stringify({ q: SERVE_WORDS, exactTotal: true });
const PAGE = `/?q=${encodeURIComponent(SERVE_WORDS)}`;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const post = async (url, body) => {
  const res = await fetch(`${url}${SEARCH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`serve: ${url}${SEARCH} ${body} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
};
const ids = (text) => JSON.parse(text).tenders.map((tender) => tender.id).join();

/** `tenders serve` over `db`, quiet, on a free port; `more`: its flags; `v8`: flags for node. */
const serve = (node, cli, db, more = [], v8 = []) => startServer(node, [...v8, cli, 'serve', '--db', db, '--listen', '127.0.0.1:0', '--quiet', ...more]);

/**
 * V8's young generation as a server that has run a while has it: at its largest (16 MB
 * semi-spaces, V8's default on 64 bits). A fresh process starts it at 1 MB and doubles it as
 * objects survive, whatever allocates them: a fresh server's first download of 200 000 tenders
 * found it grown, its first of 50 000 not yet (about 25 MB apart), which is V8 warming up, not
 * memory that grows with the download. The peak RSS of the row is taken with it there from the
 * start; the check tells a fresh server's with V8's defaults too.
 */
const SETTLED_V8 = ['--min-semi-space-size=16'];

/**
 * The load rows. `copies`: `{ engine: db }` (sqlite first); `sandboxUrl`: the --cache sandbox
 * the copies were synced from; `rounds` alternating rounds of `seconds` each per contender.
 */
export async function measureServe({ node, cli, sandboxUrl, copies, rounds, seconds, dir, say }) {
  if (!hasWrk()) {
    say('bench: skipped the serve rows: no wrk (apt-get install -y wrk to measure them)');
    return undefined;
  }
  const servers = {};
  try {
    for (const [engine, db] of Object.entries(copies)) {
      servers[engine] = await serve(node, cli, db);
      // The same replica keeping no answers: what each request costs the copy.
      servers[`${engine}Cold`] = await serve(node, cli, db, ['--cache-mb', '0']);
    }
    // Checked first: every replica gives the sandbox's first page, the full-text query an exact total, the page 25 results.
    const upstream = await post(sandboxUrl, FIRST_PAGE);
    const checks = [];
    let answer;
    for (const [engine, server] of Object.entries(servers)) {
      const first = await post(server.url, FIRST_PAGE);
      answer ??= first; // the SQLite replica's bytes, which the ceiling answers
      if (ids(first) !== ids(upstream)) throw new Error(`serve: the ${engine} replica's first page is not the sandbox's`);
      const exact = JSON.parse(await post(server.url, FULL_TEXT)).page.total?.exact;
      if (typeof exact !== 'number') throw new Error(`serve: the ${engine} replica gave no page.total.exact for ${FULL_TEXT}`);
      const page = await fetch(`${server.url}${PAGE}`);
      const html = await page.text();
      const results = html.match(/<tr[\s>]/g)?.length - 1;
      if (page.status !== 200 || results !== 25) throw new Error(`serve: the ${engine} replica's page ${PAGE} answered ${page.status} with ${results} result rows, not 25`);
      checks.push(`${engine}: the sandbox's first page (${JSON.parse(upstream).tenders.length} ids in order); '${SERVE_WORDS}' exact total ${exact}; the page 25 rows`);
    }
    const file = join(dir, 'ceiling.json');
    writeFileSync(file, answer);
    servers.ceiling = await startServer(node, [fileURLToPath(new URL('ceiling.js', import.meta.url)), file]);

    const contenders = {
      sandbox: [sandboxUrl, 'POST', FIRST_PAGE, SEARCH],
      ceiling: [servers.ceiling.url, 'POST', FIRST_PAGE, SEARCH],
    };
    for (const engine of Object.keys(copies)) {
      contenders[`${engine}`] = [servers[engine].url, 'POST', FIRST_PAGE, SEARCH];
      contenders[`${engine}Cold`] = [servers[`${engine}Cold`].url, 'POST', FIRST_PAGE, SEARCH];
      contenders[`${engine}FullText`] = [servers[engine].url, 'POST', FULL_TEXT, SEARCH];
      contenders[`${engine}Page`] = [servers[engine].url, 'GET', undefined, PAGE];
    }
    const runs = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
    const load = ([url, method, body, path], s) => wrk(`${url}${path}`, { method, body, connections: CONNECTIONS, seconds: s, dir });
    for (const contender of Object.values(contenders)) await load(contender, 1); // warm caches and JIT, untimed
    for (let round = 1; round <= rounds; round++) {
      for (const [name, contender] of Object.entries(contenders)) runs[name].push(await load(contender, seconds));
      say(`  round ${round}/${rounds}: ${Object.entries(runs).map(([n, r]) => `${n} ${r.at(-1).rps.toFixed(0)}/s p99 ${r.at(-1).p99Ms.toFixed(1)} ms`).join(', ')}`);
    }
    const medians = Object.fromEntries(Object.entries(runs).map(([name, r]) => [name, { rps: median(r.map((x) => x.rps)), p99Ms: median(r.map((x) => x.p99Ms)), p50Ms: median(r.map((x) => x.p50Ms)) }]));
    return { check: checks.join('; '), medians, runs };
  } finally {
    for (const server of Object.values(servers)) await server.stop();
  }
}

/** A process's resident memory now, in MB: anonymous (its own) and file-backed (mapped files, the node binary's text). */
const resident = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1]) / 1024;
  return { anon: mb('RssAnon'), file: mb('RssFile') };
};

/**
 * The download row: `{ served: false }` when the replica answers 404 (a build without the
 * route). Otherwise the download (curl to /dev/null) against the export of
 * the same sync, alternating `runs` times, and the server's peak RSS after one download from
 * a fresh server over the copy `db` and over a copy of `small` tenders made here. Checked
 * first: the download's bytes are the export's.
 */
export async function measureDownload({ node, cli, db, sandboxBin, small, runs, rssRuns, dir, say }) {
  const path = '/syncs/bench/tenders.ndjson';
  const probe = await serve(node, cli, db);
  let status;
  try {
    status = (await fetch(`${probe.url}${path}`, { method: 'HEAD' })).status;
  } finally {
    await probe.stop();
  }
  if (status === 404) {
    say(`bench: GET ${path} answers 404: the download row is "not served yet"`);
    return { served: false };
  }
  const curl = (url, out = '/dev/null') => ['curl', ['-sSf', '-o', out, `${url}${path}`]];
  const exportArgs = [cli, 'export', '--local', '-f', 'ndjson', '--sync', 'bench'];
  const env = { TENDERS_DB: db };
  const seconds = { download: [], export: [] };
  let check;
  const server = await serve(node, cli, db);
  try {
    // Both to files, compared as bytes (a text comparison would pass bytes that are not UTF-8).
    const downloaded = join(dir, 'download.ndjson');
    const exported = join(dir, 'download-export.ndjson');
    await timed(...curl(server.url, downloaded), {});
    await timed(node, exportArgs, env, exported);
    const body = readFileSync(downloaded);
    if (!body.equals(readFileSync(exported))) throw new Error(`download: GET ${path} is not byte for byte export --local -f ndjson --sync bench`);
    let lines = 0;
    for (let at = body.indexOf(10); at !== -1; at = body.indexOf(10, at + 1)) lines++;
    check = `${lines} lines (${(body.length / 2 ** 20).toFixed(1)} MB), byte for byte the export's`;
    for (let i = 1; i <= runs; i++) {
      seconds.download.push(await timed(...curl(server.url), {}));
      seconds.export.push(await timed(node, exportArgs, env));
      say(`  run ${i}/${runs}: download ${seconds.download.at(-1).toFixed(3)} s, export --local ${seconds.export.at(-1).toFixed(3)} s`);
    }
  } finally {
    await server.stop();
  }
  // The peak, and what the server holds once the download ended: its own memory and mapped files apart.
  const after = {};
  const peak = async (copy, size, v8 = SETTLED_V8) => {
    const rss = [];
    for (let i = 0; i < rssRuns; i++) {
      const fresh = await serve(node, cli, copy, [], v8);
      try {
        await timed(...curl(fresh.url), {});
        rss.push(processPeakMb(fresh.pid));
        if (v8 === SETTLED_V8) after[size] = resident(fresh.pid);
      } finally {
        await fresh.stop();
      }
    }
    return median(rss);
  };
  const smallDb = join(dir, 'download-small.db');
  const sandbox = await startSandbox(sandboxBin, small);
  try {
    syncCopy(node, cli, sandbox.url, smallDb);
  } finally {
    await sandbox.stop();
  }
  const rssMb = { big: await peak(db, 'big'), small: await peak(smallDb, 'small') };
  const fresh = { big: await peak(db, 'big', []), small: await peak(smallDb, 'small', []) };
  const held = ({ anon, file }) => `${anon.toFixed(1)} MB anonymous + ${file.toFixed(1)} MB file-backed`;
  check += `; the server after one download (${SETTLED_V8.join(' ')}): ${held(after.big)} (the copy), ${held(after.small)} (the small copy)`;
  check += `; a fresh server's peak with V8's defaults: ${fresh.big.toFixed(1)} MB / ${fresh.small.toFixed(1)} MB`;
  return { served: true, check, seconds, rssMb };
}
