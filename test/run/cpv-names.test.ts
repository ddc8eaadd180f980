import { describe, expect, it } from 'vitest';
import { cpvVocabulary } from '../../src/files/cpv-file.js';
import { normalizeCpvCode } from '../../src/model/cpv.js';
import { pagedTenders } from '../support/fake-client.js';
import { filledCopy } from '../support/local-copy.js';
import { runInProcess } from '../support/run.js';

/** The CPV vocabulary where a command shows it: `tenders cpv WORDS`, and a table's CPV columns. */
describe('CPV names', () => {
  it('tenders cpv WORDS lists the entries every word matches as records, those whose words start with the words first; none is no error', async () => {
    const cpv = async (...args: string[]) => {
      const r = await runInProcess(['cpv', ...args], pagedTenders(0));
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { code: string; name: string });
    };
    const road = await cpv('road', 'works');
    expect(road).toContainEqual({ code: '45233140', name: 'Roadworks' });
    expect(road.every((e) => /road/i.test(e.name) && /works/i.test(e.name))).toBe(true);
    // Names where each word starts a word of theirs come first (roads, works), then the rest (Roadworks).
    const starts = (name: string) => ['road', 'works'].every((w) => name.toLowerCase().split(/[^\p{L}\p{N}]+/u).some((part) => part.startsWith(w)));
    expect(road[0]).toEqual({ code: '45233000', name: 'Construction, foundation and surface works for highways, roads' });
    const firstOther = road.findIndex((e) => !starts(e.name));
    expect(road.slice(0, firstOther).every((e) => starts(e.name))).toBe(true);
    expect(road.findIndex((e) => e.code === '45233140')).toBeGreaterThanOrEqual(firstOther);
    const branch = await cpv('4523');
    expect(branch.length).toBeGreaterThan(1);
    expect(branch.every((e) => e.code.startsWith('4523'))).toBe(true);
    expect(await cpv('zzzqqq')).toEqual([]);
  });

  it('a table names the codes of its CPV columns; NDJSON keeps the codes as the service sent them', async () => {
    const { db, docs } = await filledCopy(20, 5);
    const first = docs[0] as { id: string; cpvCodes: string[] };
    const args = ['search', '--local', '--db', db, '--columns', 'id,cpvCodes', '-n', '20'];
    const table = await runInProcess([...args, '-f', 'table'], pagedTenders(0), { columns: 400 });
    expect(table.code, table.stderr).toBe(0);
    const row = table.stdout.split('\n').find((line) => line.includes(first.id))!;
    for (const code of first.cpvCodes) expect(row).toContain(`${code} ${cpvVocabulary().name(normalizeCpvCode(code)!)}`);
    const ndjson = await runInProcess([...args, '-f', 'ndjson'], pagedTenders(0));
    expect(JSON.parse(ndjson.stdout.split('\n').find((line) => line.includes(first.id))!)).toEqual({ id: first.id, cpvCodes: first.cpvCodes });
  });
});
