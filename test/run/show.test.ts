import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cpvVocabulary } from '../../src/files/cpv-file.js';
import { normalizeCpvCode } from '../../src/model/cpv.js';
import { pagedTenders } from '../support/fake-client.js';
import { sandboxDocs, syncInto } from '../support/local-copy.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { runInProcess } from '../support/run.js';
import { testDir } from '../support/test-context.js';
import { Store as Sandbox } from '../../src/sandbox/store.js';

type Doc = Record<string, unknown> & { id: string; title: string; cpvCodes: string[] };

/**
 * tenders show ID in process, over a copy two syncs made: one tender changed
 * between them, one gone. (End to end, against the sandbox: test/e2e/procurement.test.ts.)
 */
describe('tenders show ID', () => {
  const engines = [
    { name: 'sqlite', db: async () => join(testDir(), 'tenders.db') },
    ...(POSTGRES_MISSING ? [] : [{ name: 'postgres', db: async () => (await postgres()).createDatabase('showrun') }]),
  ];

  it.each(engines)('its fields with the codes\' names, its change and a gone tender, as the view and as JSON ($name)', async ({ db: location }) => {
    const db = await location();
    const docs = sandboxDocs(new Sandbox(30, 11)) as Doc[];
    await syncInto(db, 'all', docs);
    const [changed, gone] = [docs[3]!, docs[4]!];
    await syncInto(db, 'all', docs.filter((d) => d !== gone).map((d) => (d === changed ? { ...d, title: 'Roads, again' } : d)));
    const show = (args: string[]) => runInProcess(['show', ...args, '--db', db], pagedTenders(0), { columns: 200 });

    const text = await show([changed.id]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^id +${changed.id}$`, 'm'));
    expect(text.stdout).toMatch(/^title +Roads, again$/m);
    // Each code with its name from the vocabulary's file, as the whole vocabulary names it.
    for (const code of changed.cpvCodes.map((c) => normalizeCpvCode(c)!)) expect(text.stdout).toContain(`${code}  ${cpvVocabulary().name(code)}`);
    expect(text.stdout).toContain(`title: ${changed.title} → Roads, again  [all]`);
    expect(text.stdout).toMatch(/^ {2}gone +no, the service lists it$/m);

    const json = await show([gone.id, '-f', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const story = JSON.parse(json.stdout) as { tender: Doc; history: { goneAt: string | null; syncs: string[]; changes: { kind: string; sync: string }[] } };
    expect(story.tender).toEqual(gone);
    expect(story.history.goneAt).not.toBeNull();
    expect(story.history.changes).toEqual([expect.objectContaining({ kind: 'gone', sync: 'all' })]);
    expect((await show([gone.id])).stdout).toContain('gone (no longer listed)  [all]');

    const missing = await show(['T-9999999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^tenders: no tender 'T-9999999' in the local copy at .*: a sync whose query matches it keeps it\n$/);
  });

  it('without a copy: exit 1 saying to sync first, and nothing made', async () => {
    const db = join(testDir(), 'none.db');
    const r = await runInProcess(['show', 'T-0000001', '--db', db], pagedTenders(0));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`tenders: no local copy at ${db} yet: run tenders sync first\n`);
  });
});
