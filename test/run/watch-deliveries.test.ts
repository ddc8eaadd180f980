import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../src/files/fs.js';
import { failingWrites } from '../support/failing-fs.js';
import type { Responder } from '../support/fake-client.js';
import { readAtomWithPython } from '../support/readers.js';
import { runInProcess } from '../support/run.js';
import { TenderSet } from '../support/tender-set.js';
import { testDir } from '../support/test-context.js';

let dir: string;
beforeEach(() => {
  dir = testDir();
});

const watch = (args: string[], respond: Responder, fs?: FileSystem) =>
  runInProcess(['watch', ...args], respond, { env: { TENDERS_STATE_DIR: join(dir, 'state') }, fs });
const stateText = () => readFile(join(dir, 'state', 'w.watch'), 'utf8');

/** A loopback webhook that answers the statuses given, then 200; the bodies it got. */
let server: Server | undefined;
async function receiver(statuses: number[]): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      bodies.push(text);
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/SECRET`, bodies };
}
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('watch deliveries, in process', () => {
  it('a feed that cannot be written: exit 1, the state and FILE as they were; the next run writes the changes', async () => {
    const set = new TenderSet(20);
    const feed = join(dir, 'feed.atom');
    expect((await watch(['w', '--feed', feed], set.respond)).code).toBe(0);
    const [stateBefore, feedBefore] = [await stateText(), await readFile(feed, 'utf8')];
    set.insert(2);
    const failed = await watch(['w', '--feed', feed, '-f', 'ndjson'], set.respond, failingWrites('ENOSPC', { suffix: 'feed.atom.partial' }));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^tenders: disk full while writing .*feed\.atom\.partial/);
    expect(failed.stdout.split('\n').filter(Boolean)).toHaveLength(2); // the output was delivered
    expect(await stateText()).toBe(stateBefore);
    expect(await readFile(feed, 'utf8')).toBe(feedBefore);
    const next = await watch(['w', '--feed', feed, '-f', 'ndjson'], set.respond);
    expect(next.code).toBe(0);
    expect(next.stdout).toBe(failed.stdout);
    expect(readAtomWithPython(await readFile(feed, 'utf8')).entries.map((e) => e.title.split(':')[0])).toEqual(['New', 'New']);
  });

  it('a webhook answering 500 keeps the state; the next run posts the same document again', async () => {
    const set = new TenderSet(20);
    const hook = await receiver([500]);
    expect((await watch(['w', '--webhook', hook.url], set.respond)).code).toBe(0);
    expect(hook.bodies).toEqual([]);
    const stateBefore = await stateText();
    set.insert(3);
    const failed = await watch(['w', '--webhook', hook.url, '--retries', '0'], set.respond);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^tenders: webhook http:\/\/127\.0\.0\.1:\d+\/… answered 500: not retried \(--retries 0\); the changes will be delivered again by the next run\n$/);
    expect(await stateText()).toBe(stateBefore);
    expect((await watch(['w', '--webhook', hook.url], set.respond)).code).toBe(0);
    expect(hook.bodies).toHaveLength(2);
    const [first, second] = hook.bodies.map((b) => JSON.parse(b) as { changes: unknown[]; text: string; run: { since: string } });
    expect(second!.changes).toEqual(first!.changes);
    expect(second!.run.since).toBe(first!.run.since);
    expect(second!.text).toMatch(/^watch w: 3 new, 0 changed, 0 gone\. New: /);
    expect(await stateText()).not.toBe(stateBefore);
  });

  it('a webhook nothing listens on is said as the webhook, not as the service and its base URL', async () => {
    const set = new TenderSet(5);
    const hook = await receiver([]);
    await new Promise((resolve) => server!.close(resolve)); // the port now refuses connections
    server = undefined;
    expect((await watch(['w', '--webhook', hook.url], set.respond)).code).toBe(0);
    set.insert(1);
    const failed = await watch(['w', '--webhook', hook.url, '--retries', '0'], set.respond);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^tenders: webhook http:\/\/127\.0\.0\.1:\d+\/… failed: cannot get POST http:\/\/127\.0\.0\.1:\d+\/… from http:\/\/127\.0\.0\.1:\d+: connection refused \(is the webhook up, and its URL right\?\); the changes will be delivered again by the next run\n$/,
    );
    expect(failed.stderr).not.toMatch(/base URL|service|SECRET/);
  });

  it('a --feed FILE that is also -o, by name or through a link, is a usage error before any request', async () => {
    const set = new TenderSet(5);
    const file = join(dir, 'same.atom');
    await writeFile(file, 'not touched\n');
    await symlink(file, join(dir, 'link.atom'));
    const cases = [
      [['--feed', file, '-o', file], `--feed ${file} is the output file: name another file for the feed`],
      [['--feed', join(dir, 'link.atom'), '-o', join(dir, '.', 'same.atom')], `--feed ${join(dir, 'link.atom')} is the output file: name another file for the feed`],
    ] as const;
    for (const [args, message] of cases) {
      const r = await watch(['w', ...args], set.respond);
      expect(r, args.join(' ')).toMatchObject({ code: 2, stdout: '', stderr: `tenders: ${message}\n` });
      expect(r.client.requests).toHaveLength(0);
    }
    expect(await readFile(file, 'utf8')).toBe('not touched\n');
    expect(await readdir(dir)).toEqual(['link.atom', 'same.atom', 'state']); // no lock left
    expect(await readdir(join(dir, 'state'))).toEqual([]); // no state made
  });

  it('a --receipt FILE that is also the --feed is a usage error before any request, and the feed is not overwritten', async () => {
    const set = new TenderSet(5);
    const file = join(dir, 'feed.atom');
    await writeFile(file, 'not touched\n');
    const r = await watch(['w', '--feed', file, '--receipt', file], set.respond);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: `tenders: --receipt ${file} is the --feed file: name another file for the receipt\n` });
    expect(r.client.requests).toHaveLength(0);
    expect(await readFile(file, 'utf8')).toBe('not touched\n');
  });
});
