import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FieldTable, hashString, MAX_FIELDS, OTHER_FIELDS } from '../../../src/run/watch/field-table.js';
import { KnownTenders } from '../../../src/run/watch/known.js';
import { StateWriter } from '../../../src/run/watch/state-writer.js';
import { keptTender, lineBatches, loadState, rangePieces, readEnds, readHeader, tenderKey, tenderLine, TITLE_KEPT } from '../../../src/run/watch/state.js';
import { parseJson } from '../../../src/model/json-parse.js';
import { stringifyJson } from '../../../src/model/exact-json.js';
import { TenderGenerator } from '../../../src/sandbox/data.js';

let dir: string;
/** One directory for the file's tests, removed when they are done. */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenders-state-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));
beforeEach(async () => {
  dir = await mkdtemp(join(root, 'w-'));
});

/** The paths that differ between two versions of a tender. */
function diff(before: Record<string, unknown>, after: Record<string, unknown>, table = new FieldTable()): string[] {
  table.fingerprint(before);
  const old = table.slots.slice(0, table.length);
  table.fingerprint(after);
  return table.differences(old);
}

describe('field fingerprints', () => {
  it('name the leaves that differ, whatever the key order', () => {
    const tender = { id: 'T-1', title: 'a', buyer: { id: 'B', name: 'n' }, value: { amount: 1, currency: 'EUR' } };
    expect(diff(tender, { value: { currency: 'EUR', amount: 1 }, buyer: { name: 'n', id: 'B' }, title: 'a', id: 'T-1' })).toEqual([]);
    expect(diff(tender, { ...tender, title: 'b', buyer: { id: 'B', name: 'm' } })).toEqual(['title', 'buyer.name']);
    expect(diff(tender, { ...tender, extra: true })).toEqual(['extra']);
    expect(diff({ ...tender, extra: true }, tender)).toEqual(['extra']);
  });

  it('tell types apart and treat arrays and empty objects as leaves', () => {
    expect(diff({ n: 1 }, { n: '1' })).toEqual(['n']);
    expect(diff({ n: null }, { n: 'null' })).toEqual(['n']);
    expect(diff({ n: true }, { n: false })).toEqual(['n']);
    expect(diff({ tags: ['a', 'b'] }, { tags: ['b', 'a'] })).toEqual(['tags']);
    expect(diff({ o: {} }, { o: [] })).toEqual(['o']);
    expect(diff({ big: 12345678901234567890n }, { big: 12345678901234567891n })).toEqual(['big']);
  });

  it('name a field that turned from null into an object by its leaves', () => {
    expect(diff({ v: null }, { v: { amount: 1, currency: 'EUR' } })).toEqual(['v.amount', 'v.currency']);
    expect(diff({ v: { amount: 1 } }, { v: null })).toEqual(['v.amount']);
  });

  it('leave the id out (it is the key)', () => {
    const table = new FieldTable();
    table.fingerprint({ id: 'T-1', title: 'x' });
    expect(table.paths).toEqual(['title']);
  });

  it('keep their slots across a reload, keys with dots included', () => {
    const table = new FieldTable();
    const tender = { 'a.b': 1, a: { b: 2 }, title: 't' };
    table.fingerprint(tender);
    const slots = table.slots.slice(0, table.length);
    const reloaded = new FieldTable(JSON.parse(JSON.stringify(table.fields)) as string[][]);
    reloaded.fingerprint(tender);
    expect(reloaded.paths).toEqual(['a.b', 'a.b', 'title']);
    expect(reloaded.slots.slice(0, reloaded.length)).toEqual(slots);
    expect(diff(tender, { ...tender, 'a.b': 9 }, reloaded)).toEqual(['a.b']);
  });

  it(`tell ${MAX_FIELDS - 1} paths apart and compare the rest together as "${OTHER_FIELDS}"`, () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, i]));
    const table = new FieldTable();
    expect(diff(wide, { ...wide, f3: 'x', f80: 'y', f90: 'z' }, table)).toEqual(['f3', OTHER_FIELDS]);
    expect(table.paths).toHaveLength(MAX_FIELDS);
    // The shared slot does not depend on the order of its leaves.
    const reversed = Object.fromEntries(Object.entries(wide).reverse());
    expect(diff(wide, reversed, table)).toEqual([]);
    const reloaded = new FieldTable(table.fields);
    expect(reloaded.paths).toEqual(table.paths);
    expect(diff(wide, { ...wide, f99: 0 }, reloaded)).toEqual([OTHER_FIELDS]);
  });

  it('are never 0 (the mark of an absent field)', () => {
    for (let i = 0; i < 10_000; i++) expect(hashString(String(i), i)).not.toBe(0);
  });
});

describe('known tenders', () => {
  it('keep each key and its slots as the arrays grow, and each seen once', () => {
    const known = new KnownTenders();
    for (let i = 0; i < 20_000; i++) known.add(`"T-${i}"`, Uint32Array.from({ length: i % 7 }, (_, k) => i + k + 1));
    known.add('"T-5"', [99]); // a repeated key keeps its first fingerprint
    expect(known.size).toBe(20_000);
    const i = known.find('"T-12345"')!;
    expect([...known.slots(i)]).toEqual(Array.from({ length: 12345 % 7 }, (_, k) => 12345 + k + 1));
    expect([...known.slots(known.find('"T-5"')!)]).toEqual([6, 7, 8, 9, 10]);
    expect(known.find('"T-x"')).toBeUndefined();
    known.compact();
    expect([...known.slots(known.find('"T-19998"')!)]).toEqual([19999, 20000, 20001, 20002, 20003, 20004]);
    expect(known.markSeen(i)).toBe(true);
    expect(known.markSeen(i)).toBe(false);
  });
});

describe('state files', () => {
  const header = { name: 'w', query: { org: null, body: { statuses: ['open'] } }, created: '2026-01-01T00:00:00.000Z' };

  async function write(tenders: Record<string, unknown>[], file = join(dir, 'w.watch')) {
    const table = new FieldTable();
    const writer = await StateWriter.create(`${file}.tmp`, header);
    for (const tender of tenders) {
      table.fingerprint(tender);
      writer.add(tenderLine(tenderKey(tender)!, table, tender));
    }
    await writer.commit(file, { lastRun: '2026-01-02T00:00:00.000Z', newestPublicationDate: '2026-01-01', fields: table.fields });
    return { file, table };
  }

  it('keep keys, fingerprints, and what gone rows show, and round-trip', async () => {
    const long = 'é'.repeat(TITLE_KEPT + 50);
    const whole = 'é'.repeat(TITLE_KEPT);
    const { file, table } = await write([
      { id: 'T-1', title: 'tab\there\nand "quotes"', deadline: null },
      { id: 7, title: long, deadline: '2026-02-01' },
      { id: 'no-title' },
      { id: 8, title: whole },
    ]);
    const state = await loadState(file);
    expect(state.header).toEqual(header);
    expect(state.summary).toEqual({ lastRun: '2026-01-02T00:00:00.000Z', newestPublicationDate: '2026-01-01', fields: table.fields, tenders: 4 });
    expect(state.known.size).toBe(4);
    expect(state.known.find('7')).toBe(1);
    expect(state.known.find('"7"')).toBeUndefined(); // a number id is not its string
    const lines: Buffer[] = [];
    for await (const batch of lineBatches(file)) lines.push(...batch);
    // A title is kept whole or not at all: a gone row never carries an abbreviation.
    expect(lines.map((line) => line.toString()).slice(1, 5).map((line) => keptTender(Buffer.from(line)))).toEqual([
      { id: 'T-1', title: 'tab\there\nand "quotes"', deadline: null },
      { id: 7, deadline: '2026-02-01' },
      { id: 'no-title' },
      { id: 8, title: whole },
    ]);
    // A state of an older tenders held long titles cut to 199 characters and "…": not shown as data.
    expect(keptTender(Buffer.from(`"T-9"\tAAAA\t${JSON.stringify(`${'x'.repeat(199)}…`)}\t`))).toEqual({ id: 'T-9' });
    // The notice's URL is kept (a gone tender's feed entry links it); a line of a state written before, without it, reads the same.
    const urlTable = new FieldTable();
    const withUrl = { id: 'T-5', title: 't', deadline: null, url: 'https://tenders.example.org/notices/T-5' };
    urlTable.fingerprint(withUrl);
    expect(keptTender(Buffer.from(tenderLine('"T-5"', urlTable, withUrl).trimEnd()))).toEqual(withUrl);
    expect(keptTender(Buffer.from('"T-5"\tAAAA\t"t"\tnull'))).toEqual({ id: 'T-5', title: 't', deadline: null });
    // Status and value [amount, currency] are kept for a changed entry's "old → new"; a gone row shows the first three only.
    const summed = { id: 'T-6', title: 't', deadline: '2026-03-01', status: 'open', estimatedValue: { amount: 1200, currency: 'EUR', amountEur: 1200 } };
    urlTable.fingerprint(summed);
    const summedLine = Buffer.from(tenderLine('"T-6"', urlTable, summed).trimEnd());
    expect(summedLine.toString().split('\t').slice(2)).toEqual(['"t"', '"2026-03-01"', '', '"open"', '[1200,"EUR"]']);
    expect(keptTender(summedLine, true)).toEqual({ ...summed, estimatedValue: { amount: 1200, currency: 'EUR' } });
    expect(keptTender(summedLine)).toEqual({ id: 'T-6', title: 't', deadline: '2026-03-01' });
    // A line of a state written before (no URL, status or value): nothing more is known of it.
    expect(keptTender(Buffer.from('"T-5"\tAAAA\t"t"\tnull'), true)).toEqual({ id: 'T-5', title: 't', deadline: null });
    // Nothing to keep: still the title and deadline cells every tenders reads.
    expect(tenderLine('"T-7"', urlTable, { id: 'T-7' }).split('\t')).toHaveLength(4);
    expect(await readEnds(file)).toEqual({ header, summary: state.summary });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readHeader(join(dir, 'absent.watch'))).toBeUndefined();
  });

  it('carry lines of the previous state over, the summary still last', async () => {
    const { file } = await write([{ id: 'a', title: 'A' }, { id: 'b' }]);
    const previous = await loadState(file);
    const writer = await StateWriter.create(`${file}.tmp`, header);
    const table = new FieldTable();
    table.fingerprint({ id: 'c' });
    writer.add(tenderLine('"c"', table, { id: 'c' }));
    writer.carry((await readFile(file)).subarray(...previous.tenderBytes), 2);
    await writer.commit(file, { lastRun: 'x', newestPublicationDate: null, fields: [] });
    const state = await loadState(file);
    expect([state.known.find('"c"'), state.known.find('"a"'), state.known.find('"b"')]).toEqual([0, 1, 2]);
    expect(state.summary.tenders).toBe(3);
  });

  it('keep every digit of a long number id and value for gone rows', async () => {
    const tender = parseJson('{"id":12345678901234567890,"title":"t","deadline":12345678901234567891}') as Record<string, unknown>;
    const { file } = await write([tender]);
    const lines: Buffer[] = [];
    for await (const batch of lineBatches(file)) lines.push(...batch);
    expect(stringifyJson(keptTender(lines[1]!))).toBe('{"id":12345678901234567890,"title":"t","deadline":12345678901234567891}');
  });

  it('after a walk: unchanged lines as byte ranges to carry, unseen ones gone, read in one pass', async () => {
    const { file } = await write(Array.from({ length: 250 }, (_, i) => ({ id: `T-${i}`, title: `t${i}`, deadline: null })));
    const { known } = await loadState(file);
    for (let i = 0; i < 250; i++) if (i % 100 !== 7) known.markSeen(i);
    known.markChanged(50);
    const { carry, tenders, gone } = known.leftovers();
    expect(tenders).toEqual([7, 42, 56, 99, 42]); // 0–6, 8–49, 51–106, 108–206, 208–249
    const text = await readFile(file);
    const pieces = new Map<number, Buffer[]>();
    for await (const [r, piece] of rangePieces(file, gone)) pieces.set(r, [...(pieces.get(r) ?? []), piece]);
    expect([...pieces.values()].map((parts) => keptTender(Buffer.concat(parts)).id)).toEqual(['T-7', 'T-107', 'T-207']);
    const carried = carry.map(([start, end]) => text.subarray(start, end).toString());
    expect(carried.join('').split('\n').filter(Boolean).map((line) => keptTender(Buffer.from(line)).id)).toHaveLength(246);
    expect(carried[1]!.startsWith('"T-8"\t')).toBe(true);
    expect(carried[1]!.endsWith('"t49"\tnull\n')).toBe(true);
  });

  it('read ranges that span reads in pieces, in order', async () => {
    const file = join(dir, 'big');
    await writeFile(file, Buffer.alloc(3 << 20, 'x'));
    const got: [number, number][] = [];
    // Reads of 1 MiB from the first range's start, 10: the second range spans the first two.
    const ranges: [number, number][] = [[10, 20], [(1 << 20) + 5, (1 << 20) + 15], [(3 << 20) - 1, 3 << 20]];
    for await (const [r, piece] of rangePieces(file, ranges)) got.push([r, piece.length]);
    expect(got).toEqual([[0, 10], [1, 5], [1, 5], [2, 1]]);
  });

  it('refuse slots that are not base64url of whole 32-bit words', async () => {
    const { file } = await write([{ id: 'a', title: 'x' }]);
    const text = await readFile(file, 'utf8');
    const slots = text.split('\n')[1]!.split('\t')[1]!;
    for (const bad of [`${slots}A`, `${slots.slice(0, -1)}*`, 'A'.repeat(347) /* 65 slots */]) {
      await writeFile(file, text.replace(slots, bad));
      await expect(loadState(file)).rejects.toThrow(/has a damaged line 2/);
    }
  });

  it('only tenders with a string or number id have a key', () => {
    expect([{ id: 'a' }, { id: 3 }, { id: '' }, { id: null }, { id: {} }, { id: Number.NaN }, {}].map(tenderKey)).toEqual(['"a"', '3', undefined, undefined, undefined, undefined, undefined]);
  });

  it('an abandoned writer leaves the current state and no temporary file', async () => {
    const { file } = await write([{ id: 'a' }]);
    const before = await readFile(file, 'utf8');
    const writer = await StateWriter.create(`${file}.tmp`, header);
    writer.add('"b"\t\t\t\n');
    await writer.flush(true);
    await writer.abandon();
    expect(await readFile(file, 'utf8')).toBe(before);
    await expect(stat(`${file}.tmp`)).rejects.toThrow(/ENOENT/);
  });

  it('a planted temporary file (a link) is replaced, not written through', async () => {
    const target = join(dir, 'victim');
    await writeFile(target, 'precious');
    const { symlink } = await import('node:fs/promises');
    await symlink(target, join(dir, 'w.watch.tmp'));
    await write([{ id: 'a' }]);
    expect(await readFile(target, 'utf8')).toBe('precious');
  });

  it('hold 200 000 tenders of the sandbox in under 44 MB (the notice URL is a third of it, status and value [amount, currency] a tenth)', async () => {
    const tenders = new TenderGenerator(7).initial(200_000) as unknown as Record<string, unknown>[];
    const { file } = await write(tenders);
    const { size } = await stat(file);
    expect(size).toBeLessThan(44 * 1024 * 1024);
    const used = () => {
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    tenders.length = 0;
    const before = used();
    const state = await loadState(file);
    expect(state.known.size).toBe(200_000);
    if (process.env.WATCH_MEMORY) console.log(`200 000 tenders: ${(size / 2 ** 20).toFixed(1)} MiB on disk, +${((used() - before) / 2 ** 20).toFixed(1)} MiB in memory`);
  });
});
