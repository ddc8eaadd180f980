/**
 * A sync run into SQLite. Pages are staged in a TEMP table: private to this
 * connection, on disk (memory stays flat), taking no lock on the database, and
 * gone with the process if it is killed. Commit applies the stage in one
 * IMMEDIATE transaction: readers see the copy before or after the run, never
 * half of it, and a run that never commits leaves every table as it was.
 */

import type BetterSqlite3 from 'better-sqlite3';

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;
import { parseJson } from '../model/json-parse.js';
import { RunError } from '../errors.js';
import { stringifyJson, type JsonObject } from '../model/exact-json.js';
import { jsonOrNull, tenderColumns, tenderId } from './columns.js';
import { runReceipt } from './run-receipt.js';
import { fieldChanges } from './diff.js';
import { TENDER_INDEXES } from './sqlite-schema.js';
import type { RunCounts, RunFacts, RunMode, RunReceipt, SyncDefinition, SyncRun } from './store.js';

/** Tenders written at once from which the indexes are rebuilt rather than updated (see #bulk). */
const BULK_ROWS = 5000;
/** Rows the change pass reads at a time: the transaction's memory stays flat. */
const DIFF_BATCH = 500;

let stages = 0;

export interface RunContext {
  db: Database;
  sync: SyncDefinition;
  mode: RunMode;
  baseline: boolean;
  /** Runs `work` in one IMMEDIATE transaction, waiting (bounded) for other writers. */
  write<T>(work: () => T): T;
  release(): Promise<void>;
}

export class SqliteRun implements SyncRun {
  readonly baseline: boolean;
  readonly #ctx: RunContext;
  readonly #stage = `temp.stage_${++stages}`;
  readonly #started = new Date().toISOString();
  readonly #counts: RunCounts = { new: 0, changed: 0, gone: 0, unchanged: 0, seen: 0, repeated: 0, withoutId: 0 };
  readonly #insert: Statement;
  readonly #replace: Statement;
  readonly #known: Statement;
  #ended = false;

  constructor(ctx: RunContext) {
    this.#ctx = ctx;
    this.baseline = ctx.baseline;
    const { db } = ctx;
    db.exec(`CREATE TABLE ${this.#stage} (
      id TEXT PRIMARY KEY, published TEXT, deadline TEXT, status TEXT, buyer_id TEXT, buyer_name TEXT,
      buyer_country TEXT, title TEXT, value_eur REAL, doc TEXT NOT NULL) WITHOUT ROWID`);
    const columns = 'id, published, deadline, status, buyer_id, buyer_name, buyer_country, title, value_eur, doc';
    this.#insert = db.prepare(`INSERT OR IGNORE INTO ${this.#stage} (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.#replace = db.prepare(`REPLACE INTO ${this.#stage} (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.#known = db
      .prepare('SELECT id FROM sync_tenders WHERE sync = ? AND gone_at IS NULL AND id IN (SELECT value FROM json_each(?))')
      .raw();
  }

  async known(ids: readonly string[]): Promise<Set<string>> {
    const rows = this.#known.all(this.#ctx.sync.name, JSON.stringify(ids)) as [string][];
    return new Set(rows.map(([id]) => id));
  }

  async add(tenders: readonly Record<string, unknown>[]): Promise<void> {
    this.#live();
    const { db } = this.#ctx;
    db.exec('BEGIN');
    try {
      for (const tender of tenders) {
        this.#counts.seen++;
        const id = tenderId(tender);
        if (id === undefined) {
          this.#counts.withoutId++;
          continue;
        }
        const c = tenderColumns(id, tender);
        const row = [id, c.published, c.deadline, c.status, c.buyerId, c.buyerName, c.buyerCountry, c.title, c.valueEur, stringifyJson(tender)];
        if (this.#insert.run(row).changes === 0) {
          this.#counts.repeated++;
          this.#replace.run(row);
        }
      }
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
  }

  async commit(facts: RunFacts): Promise<RunReceipt> {
    this.#live();
    try {
      const receipt = this.#ctx.write(() => (facts.complete ? this.#apply(facts) : this.#receiptOnly(facts)));
      return receipt;
    } finally {
      await this.abort();
    }
  }

  async abort(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    try {
      this.#ctx.db.exec(`DROP TABLE IF EXISTS ${this.#stage}`);
    } finally {
      await this.#ctx.release();
    }
  }

  #live(): void {
    if (this.#ended) throw new Error('this sync run has ended');
  }

  /** An incomplete run: its receipt, nothing else. */
  #receiptOnly(facts: RunFacts): RunReceipt {
    const { db, sync } = this.#ctx;
    const receipt = this.#receipt(facts, new Date().toISOString(), false);
    receipt.run = this.#insertRun(receipt);
    db.prepare('UPDATE syncs SET last_run = ? WHERE name = ?').run(receipt.run, sync.name);
    return receipt;
  }

  #apply(facts: RunFacts): RunReceipt {
    const { db, sync, mode } = this.#ctx;
    const now = new Date().toISOString();
    const receipt = this.#receipt(facts, now, true);
    const run = (receipt.run = this.#insertRun(receipt));
    const stage = this.#stage;
    const name = sync.name;
    const held = `EXISTS (SELECT 1 FROM sync_tenders m WHERE m.sync = ? AND m.id = s.id AND m.gone_at IS NULL)`;
    // In new-only runs the tenders the sync holds are left as they are.
    const only = mode === 'new-only' ? `AND NOT ${held}` : '';
    const onlyParams = mode === 'new-only' ? [name] : [];

    const staged = (db.prepare(`SELECT count(*) FROM ${stage}`).raw().get() as [number])[0];
    const fresh = (db.prepare(`SELECT count(*) FROM ${stage} s WHERE NOT ${held}`).raw().get(name) as [number])[0];
    this.#counts.new = fresh;
    if (!this.baseline) {
      db.prepare(`INSERT INTO changes (run, sync, id, kind, at) SELECT ?, ?, s.id, 'new', ? FROM ${stage} s WHERE NOT ${held} ORDER BY s.id`).run(
        run,
        name,
        now,
        name,
      );
    }
    const changed = this.#recordFieldChanges(run, now, only, onlyParams);
    this.#counts.changed = changed;
    this.#counts.unchanged = staged - fresh - changed;

    // Only new or changed documents (or tenders coming back) are written whole; the others get
    // their last_seen, which no index holds.
    const written = `FROM ${stage} s WHERE NOT EXISTS (SELECT 1 FROM tenders t WHERE t.id = s.id AND t.doc = s.doc AND t.gone_at IS NULL) ${only}`;
    const rebuild = this.#bulk((db.prepare(`SELECT count(*) ${written}`).raw().get(...onlyParams) as [number])[0]);
    db.prepare(
      `INSERT INTO tenders (id, published, deadline, status, buyer_id, buyer_name, buyer_country, title, value_eur, doc, first_seen, last_seen)
       SELECT id, published, deadline, status, buyer_id, buyer_name, buyer_country, title, value_eur, doc, ?, ? ${written}
       ON CONFLICT (id) DO UPDATE SET published = excluded.published, deadline = excluded.deadline, status = excluded.status,
         buyer_id = excluded.buyer_id, buyer_name = excluded.buyer_name, buyer_country = excluded.buyer_country, title = excluded.title,
         value_eur = excluded.value_eur, doc = excluded.doc, last_seen = excluded.last_seen, gone_at = NULL`,
    ).run(now, now, ...onlyParams);
    rebuild();
    db.prepare(`UPDATE tenders SET last_seen = ? WHERE last_seen <> ? AND id IN (SELECT id FROM ${stage} s WHERE true ${only})`).run(
      now,
      now,
      ...onlyParams,
    );
    db.prepare(
      `INSERT INTO sync_tenders (sync, id, first_seen, last_seen) SELECT ?, id, ?, ? FROM ${stage} s WHERE true ${only}
       ON CONFLICT (sync, id) DO UPDATE SET last_seen = excluded.last_seen, gone_at = NULL`,
    ).run(name, now, now, ...onlyParams);

    if (mode === 'full') this.#counts.gone = this.#markGone(run, name, now);

    db.prepare(
      `INSERT INTO syncs (name, query, service, created, last_run, last_complete) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET query = excluded.query, service = excluded.service, last_run = excluded.last_run,
         last_complete = excluded.last_complete`,
    ).run(name, stringifyJson(sync.query), sync.service, now, run, now);
    const c = this.#counts;
    db.prepare(
      'UPDATE runs SET new = ?, changed = ?, gone = ?, unchanged = ?, seen = ?, repeated = ?, without_id = ? WHERE run = ?',
    ).run(c.new, c.changed, c.gone, c.unchanged, c.seen, c.repeated, c.withoutId, run);
    receipt.counts = { ...c };
    return receipt;
  }

  /**
   * One `changed` row per changed field of every staged tender whose stored
   * document differs, whichever sync stored it (a change is recorded once, by
   * the run that sees it first). Returns how many of the sync's own tenders changed.
   */
  #recordFieldChanges(run: number, now: string, only: string, onlyParams: string[]): number {
    const { db, sync } = this.#ctx;
    const read = db
      .prepare(
        `SELECT s.id, t.doc, s.doc, EXISTS (SELECT 1 FROM sync_tenders m WHERE m.sync = ? AND m.id = s.id AND m.gone_at IS NULL)
         FROM ${this.#stage} s JOIN tenders t ON t.id = s.id WHERE s.id > ? AND t.doc <> s.doc ${only} ORDER BY s.id LIMIT ${DIFF_BATCH}`,
      )
      .raw();
    const insert = db.prepare("INSERT INTO changes (run, sync, id, kind, field, old, new, at) VALUES (?, ?, ?, 'changed', ?, ?, ?, ?)");
    let changed = 0;
    let after = '';
    for (;;) {
      const rows = read.all(sync.name, after, ...onlyParams) as [string, string, string, number][];
      for (const [id, before, current, held] of rows) {
        const fields = fieldChanges(parseJson(before) as JsonObject, parseJson(current) as JsonObject);
        for (const field of fields) insert.run(run, sync.name, id, field.path, jsonOrNull(field.old), jsonOrNull(field.new), now);
        if (held && fields.length > 0) changed++;
      }
      if (rows.length < DIFF_BATCH) return changed;
      after = rows[rows.length - 1]![0];
    }
  }

  /**
   * Before writing `rows` tenders: when they are many, and more than the table
   * holds (a first sync), drops the indexes of `tenders`, to be built again by
   * the function returned once they are written: sorting once beats inserting
   * at random places in every index. Inside the run's transaction, readers
   * keep their indexes. Otherwise the returned function does nothing.
   */
  #bulk(rows: number): () => void {
    const { db } = this.#ctx;
    const held = (db.prepare('SELECT count(*) FROM tenders').raw().get() as [number])[0];
    if (rows < BULK_ROWS || rows < held) return () => undefined;
    for (const sql of TENDER_INDEXES) db.exec(`DROP INDEX IF EXISTS ${sql.split(' ')[2]}`);
    return () => {
      for (const sql of TENDER_INDEXES) db.exec(sql);
    };
  }

  /** The sync's tenders this complete run did not see: `gone` rows, and gone_at where no sync holds them any more. */
  #markGone(run: number, name: string, now: string): number {
    const { db } = this.#ctx;
    const missing = `sync = ? AND gone_at IS NULL AND NOT EXISTS (SELECT 1 FROM ${this.#stage} s WHERE s.id = sync_tenders.id)`;
    db.prepare(`INSERT INTO changes (run, sync, id, kind, at) SELECT ?, ?, id, 'gone', ? FROM sync_tenders WHERE ${missing} ORDER BY id`).run(
      run,
      name,
      now,
      name,
    );
    const gone = db.prepare(`UPDATE sync_tenders SET gone_at = ? WHERE ${missing}`).run(now, name).changes;
    if (gone > 0) {
      db.prepare(
        `UPDATE tenders SET gone_at = ? WHERE gone_at IS NULL
           AND id IN (SELECT id FROM sync_tenders WHERE sync = ? AND gone_at = ?)
           AND NOT EXISTS (SELECT 1 FROM sync_tenders m WHERE m.id = tenders.id AND m.gone_at IS NULL)`,
      ).run(now, name, now);
    }
    return gone;
  }

  #receipt(facts: RunFacts, ended: string, complete: boolean): RunReceipt {
    const { sync, mode } = this.#ctx;
    return runReceipt({ sync, mode, baseline: this.baseline, startedAt: this.#started, counts: this.#counts }, facts, ended, complete);
  }

  #insertRun(r: RunReceipt): number {
    const c = r.counts;
    const result = this.#ctx.db
      .prepare(
        `INSERT INTO runs (sync, query, service, mode, baseline, started, ended, complete, pages, requests,
           new, changed, gone, unchanged, seen, repeated, without_id, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        r.sync,
        stringifyJson(r.query),
        r.service,
        r.mode,
        r.baseline ? 1 : 0,
        r.startedAt,
        r.endedAt,
        r.complete ? 1 : 0,
        r.pages,
        r.requests,
        c.new,
        c.changed,
        c.gone,
        c.unchanged,
        c.seen,
        c.repeated,
        c.withoutId,
        r.error,
      );
    return Number(result.lastInsertRowid);
  }
}

/** A commit that waited its bounded time for another sync's. */
export function busyError(path: string, timeoutMs: number): RunError {
  return new RunError(
    `${path} is busy: another sync has been writing it for more than ${Math.round(timeoutMs / 1000)} s; try again when it is done`,
  );
}
