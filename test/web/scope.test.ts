import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store as Sandbox } from '../../src/sandbox/store.js';
import { tenderStory } from '../../src/serve/tender-story.js';
import { sandboxDocs, syncInto } from '../support/local-copy.js';
import { testDir } from '../support/test-context.js';
import { resultIds, webClient } from './web-client.js';

/** The German buyers' tenders or the others'. */
const german = (doc: Record<string, unknown>) => (doc.buyer as { country?: string } | undefined)?.country === 'DEU';

describe('the pages of `tenders serve --sync deu`: only the served sync, as the API serves it', () => {
  let db: string;
  let deu: Record<string, unknown>[];
  let rest: Record<string, unknown>[];
  let served: Awaited<ReturnType<typeof webClient>>;
  let all: Awaited<ReturnType<typeof webClient>>;

  beforeEach(async () => {
    const docs = sandboxDocs(new Sandbox(300, 17));
    deu = docs.filter(german);
    rest = docs.filter((doc) => !german(doc));
    db = join(testDir(), 'tenders.db');
    await syncInto(db, 'deu', deu);
    await syncInto(db, 'rest', rest);
    // A second run of each: a deadline moved and a tender gone in both syncs.
    const moved = (doc: Record<string, unknown>) => ({ ...doc, deadline: '2027-04-15T12:00:00Z' });
    await syncInto(db, 'deu', [moved(deu[0]!), ...deu.slice(1, -1)]);
    await syncInto(db, 'rest', [moved(rest[0]!), ...rest.slice(1, -1)]);
    served = await webClient(db, undefined, ['deu']);
    all = await webClient(db);
  });
  afterEach(async () => {
    await served.close();
    await all.close();
  });

  it('/: results and count of the served sync only; the sync picker offers it alone; another sync selects nothing and links no download', async () => {
    expect(deu.length).toBeGreaterThan(10);
    expect(rest.length).toBeGreaterThan(10);
    const page = (await served.get('/?limit=100'))!;
    const held = deu.length - 1;
    expect(page.body).toContain(`<strong>${held} tenders</strong> match.`);
    const ids = new Set(deu.map((doc) => String(doc.id)));
    expect(resultIds(page.body).length).toBe(Math.min(100, held));
    expect(resultIds(page.body).every((id) => ids.has(id))).toBe(true);
    expect(page.body).toMatch(/<select id="f-sync" name="sync" aria-describedby="f-sync-hint"><option value="">All syncs<\/option><option>deu<\/option><\/select>/);
    // Unscoped, the same page counts and offers both syncs.
    expect((await all.get('/'))!.body).toContain(`<strong>${held + rest.length - 1} tenders</strong> match.`);
    expect((await all.get('/'))!.body).toContain('<option>rest</option>');
    const other = (await served.get('/?sync=rest'))!;
    expect(other.body).toContain('<strong>0 tenders</strong> match.');
    expect(other.body).not.toContain('/syncs/rest/');
    // The served sync chosen: the same rows as no sync chosen.
    expect(resultIds((await served.get('/?sync=deu&limit=100'))!.body)).toEqual(resultIds(page.body));
  });

  it('/tenders/{id}: a tender only another sync holds is the page\'s 404, decided as GET /api/v1/tenders/{id} decides it', async () => {
    for (const doc of [deu[0]!, deu.at(-1)!, rest[0]!, rest.at(-1)!, rest[5]!]) {
      const id = String(doc.id);
      const api = await tenderStory(served.store, id, ['deu']);
      const page = (await served.get(`/tenders/${encodeURIComponent(id)}`))!;
      expect(page.status, id).toBe(api.status);
      expect(page.status, id).toBe(german(doc) ? 200 : 404);
      expect((await all.get(`/tenders/${encodeURIComponent(id)}`))!.status, id).toBe(200);
    }
    expect((await served.get(`/tenders/${encodeURIComponent(String(rest[0]!.id))}.ics`))!.status).toBe(404);
    expect((await served.get(`/tenders/${encodeURIComponent(String(deu[0]!.id))}.ics`))!.status).toBe(200);
  });

  it('/changes: the served sync\'s changes only, its name alone in the picker, another sync a 400; /syncs lists it alone', async () => {
    const changes = (await served.get('/changes?since=30d'))!;
    expect(changes.status).toBe(200);
    expect(changes.body).toContain('2 changes.');
    expect(changes.body).toContain('(sync <bdi>deu</bdi>)');
    expect(changes.body).not.toContain('(sync <bdi>rest</bdi>)');
    expect(changes.body).not.toContain('<option>rest</option>');
    expect((await all.get('/changes?since=30d'))!.body).toContain('4 changes.');
    expect((await served.get('/changes?sync=rest'))!.status).toBe(400);
    const syncs = (await served.get('/syncs'))!;
    expect(syncs.body).toContain('<th scope="row"><a href="/?sync=deu">deu</a></th>');
    expect(syncs.body).not.toContain('rest');
    expect((await all.get('/syncs'))!.body).toContain('<th scope="row"><a href="/?sync=rest">rest</a></th>');
  });
});
