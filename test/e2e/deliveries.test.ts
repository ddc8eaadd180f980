import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { testDir, testEnv } from '../support/test-context.js';
import { ndjson, runCli, type CliOptions } from '../support/cli.js';
import { readAtomWithPython, xmllintErrors } from '../support/readers.js';
import { scaled } from '../support/scale.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';

const QUERY = ['-s', 'open'];
/** Slack puts its token in the path; others in the query: neither may be printed. */
const SECRET_PATH = '/services/T000/B000/SECRETPATH';
const SECRET_QUERY = '?token=SECRETQUERY';

const sb = useSandbox({ size: 1500, seed: 21 });
let seed = 0;
/** A mutation that touches every kind of change, different each time. */
const mutate = () => sb.mutate({ insert: 12, update: 8, close: 3, remove: 3, seed: ++seed });

const watch = (args: string[], opts: CliOptions = {}) => runCli(['watch', ...args], sb.url, opts);

type Answer = 200 | 500 | { status: 429; retryAfter: string } | 'hang';

interface Received {
  url: string;
  authorization?: string;
  contentType?: string;
  body: Record<string, unknown>;
}

/** A loopback webhook receiver: answers each POST as `script` says (200 once the script runs out), records it. */
class Receiver {
  readonly received: Received[] = [];
  script: Answer[] = [];
  readonly #hung: ServerResponse[] = [];
  private constructor(readonly server: Server) {}

  static async start(): Promise<Receiver> {
    const receiver: Receiver = new Receiver(createServer((req, res) => receiver.#answer(req, res)));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receivers.push(receiver);
    return receiver;
  }

  /** The webhook URL, with credentials, a secret path and a secret query. */
  get url(): string {
    return `http://hook:pass@127.0.0.1:${(this.server.address() as AddressInfo).port}${SECRET_PATH}${SECRET_QUERY}`;
  }

  /** The documents of the POSTs answered 2xx. */
  delivered: Received[] = [];

  #answer(req: IncomingMessage, res: ServerResponse): void {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const got = { url: req.url!, authorization: req.headers.authorization, contentType: req.headers['content-type'], body: JSON.parse(text) as Record<string, unknown> };
      this.received.push(got);
      const answer = this.script.shift() ?? 200;
      if (answer === 'hang') return void this.#hung.push(res);
      if (answer === 200) {
        this.delivered.push(got);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'); // Slack's answer: not JSON
      } else if (answer === 500) res.writeHead(500).end('internal error');
      else res.writeHead(429, { 'retry-after': answer.retryAfter }).end();
    });
  }

  close(): Promise<void> {
    for (const res of this.#hung) res.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

interface ChangeRow {
  change: string;
  changedFields: string[];
  tender: { id: string; title?: string };
}
const describeChange = (c: ChangeRow) => `${c.change} ${c.tender.id}`;

/** No secret of the webhook URL in what a user or a log sees. */
function expectNoSecret(text: string): void {
  for (const secret of ['SECRETPATH', 'SECRETQUERY', 'hook:pass', 'T000']) expect(text).not.toContain(secret);
}

describe('watch --webhook against the sandbox and a loopback receiver', () => {
  it('posts once per URL per run with changes, none on the baseline or without changes; the secrets are never printed', async () => {
    const [a, b] = [await Receiver.start(), await Receiver.start()];
    const hooks = ['--webhook', a.url, '--webhook', b.url];
    expect(await watch(['w', ...QUERY, ...hooks])).toMatchObject({ code: 0, stdout: '' });
    expect(a.received.length + b.received.length).toBe(0); // the baseline posts nothing

    mutate();
    const receipt = join(testDir(), 'receipt.json');
    const r = await watch(['w', ...hooks, '-v', '-f', 'ndjson', '--receipt', receipt]);
    expect(r.code).toBe(0);
    const printed = (ndjson(r.stdout) as ChangeRow[]).map(describeChange);
    expect(printed.length).toBeGreaterThan(0);
    for (const receiver of [a, b]) {
      expect(receiver.received).toHaveLength(1);
      const [got] = receiver.received;
      expect(got!.url).toBe(SECRET_PATH + SECRET_QUERY);
      expect(got!.authorization).toBe(`Basic ${Buffer.from('hook:pass').toString('base64')}`);
      expect(got!.contentType).toBe('application/json');
      const doc = got!.body as { watch: string; changes: ChangeRow[]; run: { new: number; changed: number; gone: number }; text: string; truncated: boolean; total: number };
      expect(doc.watch).toBe('w');
      expect(doc.changes.map(describeChange)).toEqual(printed.slice(0, 25));
      expect(doc.total).toBe(printed.length);
      expect(doc.truncated).toBe(printed.length > 25);
      expect(doc.run.new + doc.run.changed + doc.run.gone).toBe(printed.length);
      expect(doc.text).toMatch(new RegExp(`^watch w: ${doc.run.new} new, ${doc.run.changed} changed, ${doc.run.gone} gone\\.`));
      expect(doc.text).not.toMatch(/[<>\n]/);
    }
    expect(r.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/… 200/);
    expectNoSecret(r.stderr);
    const written = await readFile(receipt, 'utf8');
    expectNoSecret(written);
    expect(JSON.parse(written).watch.webhooks).toEqual([
      { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/…$/), status: 200 },
      { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/…$/), status: 200 },
    ]);

    // Nothing changed: no POST. TENDERS_WEBHOOK names the same receivers.
    expect(await watch(['w'], { env: { TENDERS_WEBHOOK: `${a.url} ${b.url}` } })).toMatchObject({ code: 0, stdout: '' });
    expect(a.received.length + b.received.length).toBe(2);
  });

  // Where the state is kept: a file, or a PostgreSQL copy (TENDERS_DB) where the tests have one.
  const places: [string, () => Promise<Record<string, string>>][] = [['a file', async () => ({})]];
  if (!POSTGRES_MISSING) places.push(['a PostgreSQL copy', async () => ({ TENDERS_DB: await (await postgres()).createDatabase('hook') })]);

  it.each(places)('a webhook answering 500 (the state in %s): exit 1 with one line, the state kept, and the next run delivers the same changes', async (_, place) => {
    const env = await place();
    const watch = (args: string[]) => runCli(['watch', ...args], sb.url, { env });
    const hook = await Receiver.start();
    expect((await watch(['w', ...QUERY])).code).toBe(0);
    mutate();
    hook.script = [500, 500];
    const failed = await watch(['w', '--webhook', hook.url, '--retries', '1', '-f', 'ndjson']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^tenders: webhook http:\/\/127\.0\.0\.1:\d+\/… answered 500: still failing \(gave up after 1 retry\); the changes will be delivered again by the next run\n$/,
    );
    expect(hook.received).toHaveLength(2);
    const again = await watch(['w', '--webhook', hook.url, '-f', 'ndjson', '-v']);
    expect(again.code).toBe(0);
    expectNoSecret(again.stderr);
    expect(hook.delivered).toHaveLength(1);
    const changes = (hook.delivered[0]!.body.changes as ChangeRow[]).map(describeChange);
    expect(changes).toEqual((hook.received[0]!.body.changes as ChangeRow[]).map(describeChange));
    expect((ndjson(again.stdout) as ChangeRow[]).map(describeChange)).toEqual((ndjson(failed.stdout) as ChangeRow[]).map(describeChange));
    // Delivered: the state moved, and the next run has nothing to say.
    expect(await watch(['w', '--webhook', hook.url])).toMatchObject({ code: 0, stdout: '' });
    expect(hook.received).toHaveLength(3);
  });

  it('waits out a 429 with Retry-After, and retries a webhook that hangs past --timeout', async () => {
    const hook = await Receiver.start();
    expect((await watch(['w', ...QUERY])).code).toBe(0);
    mutate();
    hook.script = [{ status: 429, retryAfter: '1' }];
    const throttled = await watch(['w', '--webhook', hook.url, '-v']);
    expect(throttled.code).toBe(0);
    expect(throttled.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/… 429: retry 1\/5 in \d+ ms \(Retry-After 1 s\)/);
    expect(hook.received).toHaveLength(2);
    expect(hook.delivered).toHaveLength(1);

    mutate();
    hook.script = ['hang'];
    const hung = await watch(['w', '--webhook', hook.url, '--timeout', String(scaled(1000)), '-v']);
    expect(hung.code).toBe(0);
    // Both clocks of --timeout run out on a hang: the attempt's or undici's headers timeout, whichever fires first (a loaded machine decides).
    expect(hung.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/… no (complete response|response headers) within \d+ ms/);
    expectNoSecret(hung.stderr);
    expect(hook.received).toHaveLength(4);
    expect(hook.delivered).toHaveLength(2);
  });

  it('a --webhook that is not an http(s) URL is a usage error before any request', async () => {
    sb.clearRequests();
    const r = await watch(['w', ...QUERY, '--webhook', 'ftp://user:secret@example.org/x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('tenders: --webhook takes an http:// or https:// URL, not ftp://example.org\n');
    expect(sb.requests).toHaveLength(0);
  });
});

describe('watch --feed against the sandbox', () => {
  const feedFile = () => join(testDir(), 'deu.atom');
  const readFeed = async () => {
    const xml = await readFile(feedFile(), 'utf8');
    expect(xmllintErrors(xml)).toBe('');
    const feed = readAtomWithPython(xml);
    expect(feed.bozo).toBe(false);
    return feed;
  };
  /** "change id" of an entry, from its id urn:tenders:watch:NAME:SINCE:CHANGE:ID. */
  const entryChange = (id: string) => {
    const parts = id.split(':');
    return `${parts.at(-2)} ${decodeURIComponent(parts.at(-1)!)}`;
  };

  it('accumulates each run’s changes with stable ids, keeps the newest --feed-size, and leaves FILE alone when nothing changed', async () => {
    expect((await watch(['w', ...QUERY, '--feed', feedFile()])).code).toBe(0);
    expect((await readFeed()).entries).toEqual([]); // there from the baseline on, for a reader to subscribe

    mutate();
    const first = await watch(['w', '--feed', feedFile(), '-f', 'ndjson']);
    expect(first.code).toBe(0);
    const firstChanges = (ndjson(first.stdout) as ChangeRow[]).map(describeChange);
    const afterFirst = await readFeed();
    expect(afterFirst.entries.map((e) => entryChange(e.id)).sort()).toEqual([...firstChanges].sort());
    for (const entry of afterFirst.entries) {
      expect(entry.id).toMatch(/^urn:tenders:watch:w:\d{4}-\d\d-\d\dT[\d:.]+Z:(new|changed|gone):T-\d+$/);
      expect(entry.title).toMatch(/^(New|Changed \([^)]+\)|Gone): /);
      expect(JSON.parse(entry.json).id).toBe(entryChange(entry.id).split(' ')[1]);
      // Every entry links its notice, a gone one the last the watch knew; the content is for a person, not JSON.
      expect(entry.link).toBe(`https://tenders.example.org/notices/${entryChange(entry.id).split(' ')[1]}`);
      expect(entry.content).toMatch(/^<ul><li>(New tender|Changed: [^<]+ → [^<]+|No longer listed by the service[^<]*)<\/li><li>(Buyer|Deadline): /);
    }
    expect(afterFirst.entries.some((e) => e.id.includes(':gone:'))).toBe(true);
    // A changed entry names each changed field with its new value, and its old one where the watch kept it
    // (deadline, status, estimatedValue, title): "deadline 2026-03-01 12:00 UTC → 2026-03-15 12:00 UTC".
    const changed = afterFirst.entries.filter((e) => e.id.includes(':changed:'));
    let oldToNew = 0;
    for (const entry of changed) {
      const line = /^<ul><li>Changed: (.*?)<\/li>/.exec(entry.content)![1]!;
      for (const field of /^Changed \(([^)]+)\)/.exec(entry.title)![1]!.split(', ')) {
        expect(line).toMatch(new RegExp(`(^|; )${field.replace('.', '\\.')} (\\S.* )?→ `));
      }
      const deadline = /deadline (\S+ \S+ UTC) → (\S+ \S+ UTC)/.exec(line);
      if (deadline) expect(deadline[2]! > deadline[1]!).toBe(true); // the sandbox extends deadlines
      if (deadline) oldToNew++;
    }
    expect(oldToNew).toBeGreaterThan(0);

    const unchanged = await readFile(feedFile(), 'utf8');
    expect(await watch(['w', '--feed', feedFile()])).toMatchObject({ code: 0, stdout: '' });
    expect(await readFile(feedFile(), 'utf8')).toBe(unchanged);

    mutate();
    const second = await watch(['w', '--feed', feedFile(), '-f', 'ndjson']);
    const secondChanges = (ndjson(second.stdout) as ChangeRow[]).map(describeChange);
    const afterSecond = await readFeed();
    expect(afterSecond.entries).toHaveLength(firstChanges.length + secondChanges.length);
    // The first run's entries are still there, ids and all; the second run's come first.
    expect(afterSecond.entries.slice(secondChanges.length).map((e) => e.id)).toEqual(afterFirst.entries.map((e) => e.id));

    mutate();
    const third = await watch(['w', '--feed', feedFile(), '--feed-size', '3', '-f', 'ndjson']);
    expect((ndjson(third.stdout) as ChangeRow[]).length).toBeGreaterThanOrEqual(3);
    const kept = await readFeed();
    expect(kept.entries).toHaveLength(3);
    expect(kept.entries.every((e) => !afterSecond.entries.some((old) => old.id === e.id))).toBe(true);
  });

  it('-f atom writes the changes as entries on stdout, with the ids --feed gives them', async () => {
    expect((await watch(['w', ...QUERY])).code).toBe(0);
    mutate();
    const r = await watch(['w', '-f', 'atom', '--feed', feedFile()]);
    expect(r.code).toBe(0);
    expect(xmllintErrors(r.stdout)).toBe('');
    const stdout = readAtomWithPython(r.stdout);
    expect(stdout.entries.length).toBeGreaterThan(0);
    expect(stdout.entries.map((e) => e.id).sort()).toEqual((await readFeed()).entries.map((e) => e.id).sort());
    // The same content as the feed's, old → new included.
    const contents = (entries: { id: string; content: string }[]) => Object.fromEntries(entries.map((e) => [e.id, e.content.replace(/\((in|passed) [^)]*\)/g, '')]));
    expect(contents(stdout.entries)).toEqual(contents((await readFeed()).entries));
    expect(stdout.entries.some((e) => /<li>Changed: [^<]*deadline \S+ \S+ UTC → /.test(e.content))).toBe(true);
  });

  it('refuses a FILE that is not this watch’s feed (exit 2) before any request, and leaves it as it was', async () => {
    expect((await watch(['other', ...QUERY, '--feed', feedFile()])).code).toBe(0);
    const foreign = await readFile(feedFile(), 'utf8');
    sb.clearRequests();
    const r = await watch(['w', ...QUERY, '--feed', feedFile()]);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^tenders: --feed .*deu\.atom is the feed of another watch/);
    const notes = join(testDir(), 'notes.atom');
    await writeFile(notes, '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><id>x</id></feed>');
    expect((await watch(['w', ...QUERY, '--feed', notes])).code).toBe(2);
    expect(sb.requests).toHaveLength(0);
    expect(await readFile(feedFile(), 'utf8')).toBe(foreign);
    expect(await readFile(notes, 'utf8')).toBe('<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><id>x</id></feed>');
  });

  it('a --feed FILE that is the -o FILE is a usage error (exit 2) before any request, not a lock held by itself', async () => {
    sb.clearRequests();
    const r = await watch(['w', ...QUERY, '--feed', feedFile(), '-o', feedFile()]);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: `tenders: --feed ${feedFile()} is the output file: name another file for the feed\n` });
    expect(sb.requests).toHaveLength(0);
    expect((await readdir(testDir())).filter((name) => name.startsWith('deu.atom'))).toEqual([]);
  });

  it('a run killed mid-walk (SIGKILL) leaves FILE and the state as they were; the next run adds the changes', async () => {
    expect((await watch(['w', ...QUERY, '--feed', feedFile()])).code).toBe(0);
    mutate();
    expect((await watch(['w', '--feed', feedFile()])).code).toBe(0);
    const state = join(testEnv().TENDERS_STATE_DIR!, 'w.watch');
    const [feedBefore, stateBefore] = [await readFile(feedFile(), 'utf8'), await readFile(state)];
    mutate();
    sb.clearRequests();
    sb.setFaults({ stallEvery: 2, stallMs: 60_000 });
    let child: ChildProcess | undefined;
    const killed = watch(['w', '--feed', feedFile()], { onSpawn: (c) => (child = c) });
    await sb.arrived((e) => e.n === 2); // the second page is held: the walk is midway
    child!.kill('SIGKILL');
    expect((await killed).signal).toBe('SIGKILL');
    expect(await readFile(feedFile(), 'utf8')).toBe(feedBefore);
    expect(await readFile(state)).toEqual(stateBefore);

    sb.setFaults({});
    const next = await watch(['w', '--feed', feedFile(), '-f', 'ndjson']);
    expect(next.code).toBe(0);
    const added = (ndjson(next.stdout) as ChangeRow[]).length;
    expect(added).toBeGreaterThan(0);
    expect((await readFeed()).entries).toHaveLength(readAtomWithPython(feedBefore).entries.length + added);
  });
});
