import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { nodeFs } from '../../../src/files/fs.js';
import type { WatchChange } from '../../../src/run/watch/watch-changes.js';
import { RollingFeed } from '../../../src/run/watch/feed.js';
import { webhookDocument, webhookText, type WebhookRun } from '../../../src/run/watch/webhook.js';
import { parseWebhook, webhooksFromEnv } from '../../../src/run/watch/webhook-url.js';
import { HOSTILE_TITLE, hostileTenders } from '../../support/hostile-tenders.js';
import { readAtomWithPython, xmllintErrors } from '../../support/readers.js';
import { testDir } from '../../support/test-context.js';

const hostile = (): WatchChange[] => {
  const [a, b, c] = hostileTenders();
  return [
    { change: 'new', changedFields: [], tender: a! },
    { change: 'changed', changedFields: ['deadline', 'estimatedValue.amount'], tender: b! },
    { change: 'gone', changedFields: [], tender: c! },
  ];
};

const run = (first: WatchChange[], max = 25): WebhookRun => {
  const counts = { new: 0, changed: 0, gone: 0 };
  for (const c of first) counts[c.change]++;
  return { watch: 'deu-open', query: { org: null, body: { statuses: ['open'] } }, at: '2026-11-25T04:00:00.000Z', since: '2026-11-24T04:00:00.000Z', counts, first, max };
};

describe('webhook documents', () => {
  it('says the run in one paragraph that no chat reads as markup: counts, then each change, titles cut', () => {
    const text = webhookText(run(hostile()));
    expect(text).toMatch(/^watch deu-open: 1 new, 1 changed, 1 gone\. New: T-1 Roads & ‹b›bridges‹\/b› "north"; 'lot', 2\\3 line two tab/);
    expect(text).toContain('(Büro ‹&› "Ost", deadline 2027-01-14)');
    expect(text).toContain('Changed: T-2 No deadline, no value (deadline, estimatedValue.amount).');
    expect(text).toMatch(/Gone: T-3 Δήμος 東京 🚧 .*… \(Ville, de; Lille, deadline 2027-02-01\)\.$/u);
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/); // no emoji cut in half
    expect(text).not.toMatch(/[<>\u0000-\u001f\u007f-\u009f]/);
    expect(HOSTILE_TITLE).toContain('<b>');
  });

  it('names ten changes at most and counts the rest; the document holds --webhook-changes of them', () => {
    const many: WatchChange[] = Array.from({ length: 12 }, (_, i) => ({ change: 'new', changedFields: [], tender: { id: `T-${i}`, title: `Title ${i}` } }));
    expect(webhookText(run(many))).toMatch(/New: T-0 Title 0; .*; T-9 Title 9\. And 2 more\.$/);
    const doc = JSON.parse(webhookDocument(run(many, 3))) as { changes: WatchChange[]; truncated: boolean; total: number; run: object; text: string };
    expect(doc.changes.map((c) => c.tender.id)).toEqual(['T-0', 'T-1', 'T-2']);
    expect(doc).toMatchObject({ truncated: true, total: 12, run: { new: 12, changed: 0, gone: 0, since: '2026-11-24T04:00:00.000Z' } });
    expect(JSON.parse(webhookDocument(run(many, 0))).changes).toEqual([]);
    expect(JSON.parse(webhookDocument(run(many.slice(0, 2)))).truncated).toBe(false);
  });

  it('shows a webhook as scheme://host/… only; TENDERS_WEBHOOK is split at whitespace, not at commas', () => {
    expect(parseWebhook('https://u:p@hooks.slack.com:8443/services/T0/B0/X?a=1,2').shown).toBe('https://hooks.slack.com:8443/…');
    expect(() => parseWebhook('hooks.slack.com/services/T0')).toThrow(UsageError);
    expect(webhooksFromEnv(' https://a.example/x?a=1,2\n https://b.example/y ')).toEqual(['https://a.example/x?a=1,2', 'https://b.example/y']);
  });
});

describe('a rolling feed', () => {
  const now = new Date('2026-11-25T04:00:00Z');
  const watch = { name: 'deu-open', since: '2026-11-24T04:00:00.000Z' };

  it('keeps hostile titles through feedparser, and an entry delivered again replaces its copy', async () => {
    const file = join(testDir(), 'feed.atom');
    const feed = await RollingFeed.open(file, 'deu-open', 200, nodeFs);
    feed.add(hostile(), watch, now);
    await feed.commit(now);
    const xml = await readFile(file, 'utf8');
    expect(xmllintErrors(xml)).toBe('');
    const parsed = readAtomWithPython(xml);
    expect(parsed.feed).toMatchObject({ id: 'urn:tenders:watch:deu-open', title: 'tenders watch deu-open' });
    const titles = parsed.entries.map((e) => e.title);
    // A run's entries in the order it reports its changes (as stdout and -f atom list them): new first.
    expect(titles[0]).toBe(`New: ${HOSTILE_TITLE.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, '\ufffd')}`);
    expect(titles[1]).toBe('Changed (deadline, estimatedValue.amount): No deadline, no value');
    expect(parsed.entries[0]!.id).toBe('urn:tenders:watch:deu-open:2026-11-24T04:00:00.000Z:new:T-1');
    expect(JSON.parse(parsed.entries[0]!.json).title).toBe(HOSTILE_TITLE);

    // The same changes again (a run whose webhook failed), and one more: each id once.
    const again = await RollingFeed.open(file, 'deu-open', 200, nodeFs);
    again.add([...hostile(), { change: 'new', changedFields: [], tender: { id: 'T-9', title: 'Nine' } }], watch, now);
    await again.commit(now);
    const ids = readAtomWithPython(await readFile(file, 'utf8')).entries.map((e) => e.id.split(':').slice(-2).join(' '));
    expect(ids).toEqual(['new T-1', 'changed T-2', 'gone T-3', 'new T-9']);

    // A later run's entries go in front; the feed keeps its newest `size`.
    const small = await RollingFeed.open(file, 'deu-open', 2, nodeFs);
    small.add([{ change: 'gone', changedFields: [], tender: { id: 'T-9' } }], { ...watch, since: '2026-11-25T04:00:00.000Z' }, now);
    await small.commit(now);
    expect(readAtomWithPython(await readFile(file, 'utf8')).entries.map((e) => e.id.split(':').slice(-2).join(' '))).toEqual(['gone T-9', 'new T-1']);
  });

  it('a run of more changes than the feed holds keeps its first ones: the new tenders, not the gone', async () => {
    const file = join(testDir(), 'busy.atom');
    const feed = await RollingFeed.open(file, 'deu-open', 2, nodeFs);
    feed.add(hostile().slice(0, 1), watch, now);
    feed.add(hostile().slice(1), watch, now);
    await feed.commit(now);
    expect(readAtomWithPython(await readFile(file, 'utf8')).entries.map((e) => e.id.split(':').slice(-2).join(' '))).toEqual(['new T-1', 'changed T-2']);
  });

  it('refuses what it did not write, and takes an empty file as a feed to make', async () => {
    const file = join(testDir(), 'other.atom');
    for (const text of ['hello', '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n  <id>urn:tenders:feed:search</id>\n</feed>\n']) {
      await writeFile(file, text);
      await expect(RollingFeed.open(file, 'deu-open', 200, nodeFs)).rejects.toThrow(UsageError);
    }
    await writeFile(file, '');
    const made = await RollingFeed.open(file, 'deu-open', 200, nodeFs);
    expect(made.kept).toEqual([]);
    made.add(hostile(), watch, now);
    await made.commit(now);
    const tampered = (await readFile(file, 'utf8')).replace('  </entry>\n', '  </entry>\n<script/>\n');
    await writeFile(file, tampered);
    await expect(RollingFeed.open(file, 'deu-open', 200, nodeFs)).rejects.toThrow(/holds something other than the entries tenders writes/);
  });
});
