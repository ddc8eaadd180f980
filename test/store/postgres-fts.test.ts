import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseJson } from '../../src/model/json-parse.js';
import { HOSTILE_TITLES } from '../../src/sandbox/catalogue.js';
import { Store as Sandbox } from '../../src/sandbox/store.js';
import { rebuildTsv } from '../../src/store/postgres-fts-rebuild.js';
import { tsquery, tsvectorText } from '../../src/store/postgres-fts.js';
import { tokens } from '../../src/store/unicode61.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { open, sqliteEngine, sync } from './engines.js';

/**
 * The PostgreSQL copy's full text (src/store/postgres-fts.ts) against SQLite's:
 * the same titles and buyer names as tsvectors on a real server and in an FTS5
 * table of the SQLite copy's tokenizer, and each query's rows from both.
 */
const EXOTIC: [string, string][] = [
  ['Αναβάθμιση οδικού δικτύου Θεσσαλονίκης — φάση Β΄', 'Δήμος Θεσσαλονίκης'],
  ['Αναβαθμιση οδικου δικτυου Θεσσαλονικης', 'ΔΗΜΟΣ ΘΕΣΣΑΛΟΝΊΚΗΣ'],
  ['Supply of 🚑 ambulances, incl. "4×4" models; lot A, B & C', 'HSE Cork'],
  ['School € 5 000', 'Région Île-de-France'],
  ['Ремонт покрівлі, "Школа №5" й ёлка Її', 'Київська міська рада'],
  ['Ремонт покрiвлi йолка', 'Киевская городская'],
  ['ſtraße ϐeta Ꭰꭰ Cherokee', 'Ꮳ ꮳ'],
  ['한국 도로 가나다', '서울특별시'],
  ['e\u0301te\u0301 cafe\u0301 naïve', 'Nai\u0308ve cafè'],
  ['हिन्दी सड़क', 'α\u0342β'],
  ['ﬁnal ＡＢＣ Ⅻ 𐐀𐐨', '𝐀𝟎 東京都庁'],
  ['hospital cleaning', 'Hôpital de Lyon'],
];

describe.skipIf(POSTGRES_MISSING)('full-text search in PostgreSQL, as in SQLite', () => {
  let client: pg.Client;
  const sqlite = new Database(':memory:');
  let rows: [string, string][];

  beforeAll(async () => {
    const docs = [...new Sandbox(400, 21).rows()].map((row) => parseJson(row.json) as { title?: string; buyer?: { name?: string } });
    rows = [...docs.map((d): [string, string] => [d.title ?? '', d.buyer?.name ?? '']), ...HOSTILE_TITLES.map((t): [string, string] => [t, '']), ...EXOTIC];
    sqlite.exec("CREATE VIRTUAL TABLE t USING fts5(title, buyer_name, tokenize='unicode61 remove_diacritics 2', columnsize=0)");
    const insert = sqlite.prepare('INSERT INTO t (rowid, title, buyer_name) VALUES (?, ?, ?)');
    rows.forEach(([title, buyer], i) => insert.run(i + 1, title, buyer));
    client = new pg.Client({ connectionString: await (await postgres()).createDatabase('fts') });
    await client.connect();
    await client.query('CREATE TABLE t (id integer PRIMARY KEY, tsv tsvector NOT NULL)');
    await client.query('INSERT INTO t SELECT i, v::tsvector FROM unnest($1::text[]) WITH ORDINALITY AS u(v, i)', [rows.map(([title, buyer]) => tsvectorText(title, buyer))]);
  });
  afterAll(async () => {
    sqlite.close();
    await client?.end();
  });

  /** SQLite's rows, or its refusal; PostgreSQL's rows, or its refusal; 'FTS5 only' for what only FTS5 does. */
  function fromSqlite(query: string): number[] | 'refused' {
    try {
      return sqlite.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid').pluck().all(query) as number[];
    } catch {
      return 'refused';
    }
  }
  async function fromPostgres(query: string): Promise<number[] | 'refused' | 'FTS5 only'> {
    let q: string | null;
    try {
      q = tsquery(query);
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return /in a SQLite copy only/.test((err as Error).message) ? 'FTS5 only' : 'refused';
    }
    // A special query (*reads) matches FTS5's row 0, no tender.
    if (q === null) return query.startsWith('*') ? [0] : [];
    const { rows: found } = await client.query<{ id: number }>('SELECT id FROM t WHERE tsv @@ $1::tsquery ORDER BY id', [q]);
    return found.map((r) => r.id);
  }
  async function same(query: string): Promise<void> {
    const theirs = fromSqlite(query);
    const ours = await fromPostgres(query);
    if (ours === 'FTS5 only') expect(Array.isArray(theirs), query.slice(0, 200)).toBe(true);
    else expect(ours, JSON.stringify(query).slice(0, 200)).toEqual(theirs);
  }

  it("finds the tester's queries as SQLite does: words beside a phrase of no letters, a Greek title pasted whole", async () => {
    for (const query of ['Supply of 🚑 ambulances', 'school €', '"" hospital', 'Αναβάθμιση οδικού δικτύου Θεσσαλονίκης — φάση Β΄']) {
      const theirs = fromSqlite(query);
      expect(Array.isArray(theirs) && theirs.length, query).toBeGreaterThan(0);
      expect(await fromPostgres(query), query).toEqual(theirs);
    }
  });

  it('folds words as SQLite: Greek accents and final sigma, Cyrillic й ё ї, ſ, ϐ, Cherokee, Hangul, decomposed accents, marks that end a word', async () => {
    for (const query of [
      'θεσσαλονίκης', 'θεσσαλονικης', 'ΘΕΣΣΑΛΟΝΊΚΗΣ', 'θεσσαλονικησ', 'δήμος', 'δημοσ', 'ΔΗΜΟΣ',
      'й', 'и', 'ёлка', 'елка', 'йолка', 'її', 'ii', 'покрівлі', 'покрiвлi', 'школа',
      'straße', 'ſtraße', 'strasse', 'βeta', 'ϐeta', 'Ꭰꭰ', 'ꭰꭰ', 'Ꮳ', 'ꮳ',
      '한국', '가나다', '가*', 'ete', 'e\u0301te\u0301', 'été', 'cafe', 'naive', 'naïve', 'nai\u0308ve',
      'ह', 'हिन्दी', 'α', 'β', 'α\u0342β', '"α β"',
      'ﬁnal', 'final', 'abc', 'ＡＢＣ', 'ⅻ', '𐐨𐐨', '𝐀𝟎', '東京都庁', '東京*', 'hopital', 'hôpital', 'HÔPITAL', 'lyon',
    ]) {
      await same(query);
    }
  });

  it('refuses as FTS5 refuses, and what only FTS5 does', async () => {
    for (const query of ['(a OR b) c', '(a) b', 'x (y)', '(hospital OR school) lyon', '"open', 'covid-19', 'a:b', '* x', 'AND', 'a OR']) {
      expect(fromSqlite(query), query).toBe('refused');
      expect(await fromPostgres(query), query).toBe('refused');
    }
    for (const query of ['NEAR(road maintenance)', 'title:road', '^road']) {
      expect(Array.isArray(fromSqlite(query)), query).toBe(true);
      expect(await fromPostgres(query), query).toBe('FTS5 only');
    }
    await same('*reads');
  });

  it('random queries of the rows own words, operators and phrases of no words, as SQLite', async () => {
    const words = [...new Set(rows.flatMap(([title, buyer]) => `${title} ${buyer}`.split(/[\s,;"()*+:^{}\-.'!?@=|&/\\]+/u)))].filter(
      (w) => w !== '' && w !== 'AND' && w !== 'OR' && w !== 'NOT' && w !== 'NEAR',
    );
    const pieces = ['AND', 'OR', 'NOT', '(', ')', '*', '+', '""', '🚑', '—', '€', '"road maintenance"', '"of 🚑 ambulances"'];
    let seed = 5;
    const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    for (let i = 0; i < 1500; i++) {
      const parts = Array.from({ length: 1 + random(7) }, () => (random(3) === 0 ? pieces[random(pieces.length)]! : words[random(words.length)]!));
      // A word of the rows, lower case or upper case, whole or as a prefix.
      const query = parts.map((p) => (random(5) === 0 ? p.toUpperCase() : random(6) === 0 ? `${p.slice(0, 1 + random(3))}*` : p)).join(' ');
      await same(query);
    }
  });

  it('a query of thousands of words, side by side or joined by OR', async () => {
    const words = [...new Set(rows.flatMap(([title, buyer]) => [...tokens(title), ...tokens(buyer)]))];
    await same(words.join(' OR '));
    await same(Array.from({ length: 4000 }, (_, i) => words[i % 7]).join(' '));
  });

  it("rebuildTsv makes an older copy's tsvectors this build's, rewriting only the tenders whose words change", async () => {
    const url = await (await postgres()).createDatabase('rebuild');
    const tenders = [...EXOTIC, ['Road maintenance 2026', 'Ville de Lyon'] as [string, string]].map(([title, name], i) => ({
      id: `X-${i}`,
      title,
      publicationDate: '2026-01-01',
      buyer: { name, country: 'GRC' },
    }));
    const plain = `X-${EXOTIC.length}`;
    const file = await sqliteEngine.location();
    const [store, lite] = [await open(url), await open(file.location)];
    const c = new pg.Client({ connectionString: url });
    try {
      await sync(store, 'all', tenders);
      await sync(lite, 'all', tenders);
      await c.connect();
      // The words as an older tenders wrote them: runs of \p{L}\p{N}\p{Co}, decomposed, every mark removed, lower case
      // (the buyer's weighted B, as this one weighs them: only the folding differs).
      const old = (text: string) => (text.match(/[\p{L}\p{N}\p{Co}]+/gu) ?? []).map((w) => w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase());
      for (const t of tenders) {
        const title = old(t.title);
        const words = [...title, '', ...old(t.buyer.name)];
        const text = words.flatMap((w, i) => (w ? [`'${w}':${i + 1}${i > title.length ? 'B' : ''}`] : [])).join(' ');
        await c.query('UPDATE tenders SET tsv = $2::tsvector WHERE id = $1', [t.id, text]);
      }
      const queries = ['Αναβάθμιση οδικού δικτύου Θεσσαλονίκης — φάση Β΄', 'θεσσαλονικης', 'ΔΗΜΟΣ', 'йолка', 'ſtraße', 'Ꭰꭰ', '가나다', 'e\u0301te\u0301', 'road'];
      const differ = async () => {
        const out: string[] = [];
        for (const words of queries) if ((await store.count({ words })).total !== (await lite.count({ words })).total) out.push(words);
        return out;
      };
      expect((await differ()).length).toBeGreaterThan(3);
      const before = (await c.query('SELECT xmin::text AS x FROM tenders WHERE id = $1', [plain])).rows[0].x;

      await c.query('BEGIN');
      const rewritten = await rebuildTsv(c);
      await c.query('COMMIT');
      expect(rewritten).toBeGreaterThan(5);
      expect(rewritten).toBeLessThan(tenders.length);
      expect((await c.query('SELECT xmin::text AS x FROM tenders WHERE id = $1', [plain])).rows[0].x).toBe(before);
      const { rows: held } = await c.query<{ id: string; tsv: string; title: string; buyer_name: string }>('SELECT id, tsv::text, title, buyer_name FROM tenders');
      for (const row of held) {
        const { rows: made } = await c.query<{ tsv: string }>('SELECT $1::tsvector::text AS tsv', [tsvectorText(row.title, row.buyer_name)]);
        expect(row.tsv, row.id).toBe(made[0]!.tsv);
      }
      expect(await differ()).toEqual([]);
      await c.query('BEGIN');
      expect(await rebuildTsv(c)).toBe(0);
      await c.query('COMMIT');
    } finally {
      await c.end();
      await store.close();
      await lite.close();
      await file.cleanup();
    }
  });
});
