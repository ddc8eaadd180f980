/**
 * A sync run into SQLite, on a connection and thread of its own (see
 * sqlite-run-host.ts). Pages are appended to a TEMP table: private to this
 * connection, on disk (memory stays flat), taking no lock on the database, and
 * gone with the connection. Commit applies the stage in one IMMEDIATE
 * transaction: readers see the copy before or after the run, never half of
 * it, and a run that never commits leaves every table as it was.
 *
 * Each page is compared with the stored documents as it is staged, into a
 * small table of the tenders that are new to the sync or whose document is
 * new, changed or back; the commit works from it, so a re-sync in which little
 * changed writes little. When another sync committed in between, or an id
 * came twice, the commit compares again.
 */

import type BetterSqlite3 from 'better-sqlite3';

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;
import { recodeSqlite } from './cpv-recode.js';
import { runReceipt } from './run-receipt.js';
import { sqliteDialect } from './sql/dialect.js';
import { cpvStatements, fieldChangeRows, goneStatements, joinSync, lastSeen, newChanges, saveCounts, saveLastRun, saveSync, type Changed, type DifferingRow } from './sql/writes.js';
import { interruptedBy, openCopy, writeTransaction, type Interrupt } from './sqlite-connection.js';
import { STAGED_COLUMNS, STAGED_WIDTH, type StagedPage } from './sqlite-rows.js';
import { exec, insertRunRow } from './sqlite-run-rows.js';
import { FTS_INSERT_TRIGGER } from './sqlite-schema.js';
import { indexName, TENDER_INDEXES } from './tender-indexes.js';
import type { RunCounts, RunFacts, RunMode, RunReceipt, SyncDefinition } from './store.js';

/** Tenders written at once from which the indexes are rebuilt rather than updated (see #bulk). */
const BULK_ROWS = 5000;
/** Rows the change pass reads at a time: the transaction's memory stays flat. */
const DIFF_BATCH = 500;
/** Rows one INSERT of the stage takes at most (SQLite binds up to 32 766 values). */
const INSERT_ROWS = 200;

/** What a run is of: the copy, how long its commit waits for another writer, and the sync. */
export interface RunSetup {
  path: string;
  busyTimeoutMs: number;
  sync: SyncDefinition;
  mode: RunMode;
  baseline: boolean;
  /** Where the run's tenders' CPV codes are read from (RunOptions.cpvPaths): the copy's, once it commits. */
  cpvPaths: readonly string[];
  /** Set once the run is interrupted: its commit stops waiting and writes nothing (sqlite-connection.ts). */
  interrupt?: Interrupt;
}

/** A run on a connection of its own to the copy at `setup.path` (opened for writing): its TEMP tables go with the connection. */
export function openRun(setup: RunSetup, walked?: RunContext['walked']): { db: Database; run: SqliteRun } {
  const db = openCopy(setup.path, 'write', setup.busyTimeoutMs);
  try {
    const { sync, mode, baseline, cpvPaths } = setup;
    const write = <T>(work: () => T) => writeTransaction(db, setup.path, setup.busyTimeoutMs, work, interruptedBy(setup.interrupt));
    return { db, run: new SqliteRun({ db, sync, mode, baseline, cpvPaths, write, walked }) };
  } catch (err) {
    db.close();
    throw err;
  }
}

export interface RunContext {
  /** The run's own connection: its TEMP tables go with it. */
  db: Database;
  sync: SyncDefinition;
  mode: RunMode;
  baseline: boolean;
  cpvPaths: readonly string[];
  /** Runs `work` in one IMMEDIATE transaction, waiting (bounded) for other writers. */
  write<T>(work: () => T): T;
  /** What the walk saw when its pages come to this run second-hand (a replay, sqlite-new-copy.ts), not from stage(). */
  walked?: Pick<RunCounts, 'seen' | 'withoutId' | 'repeated'>;
}

export class SqliteRun {
  readonly baseline: boolean;
  readonly #ctx: RunContext;
  /** The pages as they came, repeats included (the last one counts): appending is what a walk can afford per row. */
  readonly #stage = 'temp.stage';
  /** Each staged id with its stage row, appended as pages come: narrow, so that the commit never sorts the stage. */
  readonly #ids = 'temp.ids';
  /** Each staged id once, with the stage row of its last repeat (`row`), made from #ids at commit. */
  readonly #seen = 'temp.seen';
  /** The staged tenders new to the sync, or whose document is new, changed or back (`differs`), as of #snapshot. */
  readonly #delta = 'temp.delta';
  readonly #started = new Date().toISOString();
  readonly #counts: RunCounts = { new: 0, changed: 0, gone: 0, unchanged: 0, seen: 0, repeated: 0, withoutId: 0 };
  /** INSERTs of the stage by how many rows they take at once (a page in one statement). */
  readonly #inserts = new Map<number, Statement>();
  readonly #see: Statement;
  readonly #known: Statement;
  readonly #compare: Statement;
  /** The stage's next row number: where a page's rows start. (Statements are made once: each holds native memory no GC pressure frees.) */
  readonly #next: Statement;
  /** The database as the pages were compared with it: PRAGMA data_version changes when another connection commits. */
  readonly #snapshot: number;

  constructor(ctx: RunContext) {
    this.#ctx = ctx;
    this.baseline = ctx.baseline;
    Object.assign(this.#counts, ctx.walked);
    const { db } = ctx;
    // A rowid table without an index until commit: rows of whole documents appended in order (a keyed
    // table, and WITHOUT ROWID above all, would move them around on every insert).
    // Each page is one transaction of the stage alone: its undo journal is a page's worth, kept in memory.
    db.exec('PRAGMA temp.journal_mode = MEMORY');
    // The stage is written and read in order: a small cache does, and memory stays the same for every size of sync.
    db.exec('PRAGMA temp.cache_size = -2048');
    // The staged columns as `tenders` declares them (their types, so values compare as stored).
    db.exec(`CREATE TABLE ${this.#stage} AS SELECT ${STAGED_COLUMNS} FROM main.tenders WHERE false`);
    db.exec(`CREATE TABLE ${this.#ids} (id TEXT NOT NULL, row INTEGER NOT NULL)`);
    this.#see = db.prepare(`INSERT INTO ${this.#ids} (id, row) SELECT id, rowid FROM ${this.#stage} WHERE rowid >= ?`);
    db.exec(`CREATE TABLE ${this.#delta} (id TEXT PRIMARY KEY, held INTEGER NOT NULL, differs INTEGER NOT NULL) WITHOUT ROWID`);
    this.#compare = this.#comparison(true);
    this.#next = db.prepare(`SELECT coalesce(max(rowid), 0) + 1 FROM ${this.#stage}`).raw();
    this.#snapshot = dataVersion(db);
    this.#known = db
      .prepare('SELECT id FROM sync_tenders WHERE sync = ? AND gone_at IS NULL AND id IN (SELECT value FROM json_each(?))')
      .raw();
  }

  /** Which of `ids` the sync holds now (before this run). */
  known(ids: readonly string[]): string[] {
    return (this.#known.all(this.#ctx.sync.name, JSON.stringify(ids)) as [string][]).map(([id]) => id);
  }

  /** One page, in the walk's order: appended to the stage and compared with the copy, in one transaction of the stage alone. */
  stage(page: StagedPage): void {
    const { db } = this.#ctx;
    this.#counts.seen += page.seen;
    this.#counts.withoutId += page.withoutId;
    db.exec('BEGIN');
    try {
      const from = (this.#next.get() as [number])[0];
      const chunk = INSERT_ROWS * STAGED_WIDTH;
      for (let at = 0; at < page.values.length; at += chunk) this.#stageRows(page.values.slice(at, at + chunk));
      this.#see.run(from);
      this.#compare.run(this.#ctx.sync.name, from);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
  }

  /** Appends rows (STAGED_WIDTH values each) with one statement: binding a page at once costs a fraction of a call per row. */
  #stageRows(values: unknown[]): void {
    const rows = values.length / STAGED_WIDTH;
    let insert = this.#inserts.get(rows);
    if (!insert) {
      const row = `(${Array.from({ length: STAGED_WIDTH }, () => '?').join(', ')})`;
      insert = this.#ctx.db.prepare(`INSERT INTO ${this.#stage} (${STAGED_COLUMNS}) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`);
      this.#inserts.set(rows, insert);
    }
    insert.run(values);
  }

  /**
   * Ends the run: when `facts.complete`, computes new/changed/gone against the
   * sync's previous state and writes tenders, membership, changes and the
   * receipt in one transaction; otherwise writes only the receipt.
   */
  commit(facts: RunFacts): RunReceipt {
    return this.#ctx.write(() => (facts.complete ? this.#apply(facts) : this.#receiptOnly(facts)));
  }

  /** An incomplete run: its receipt, nothing else. */
  #receiptOnly(facts: RunFacts): RunReceipt {
    const { db, sync } = this.#ctx;
    this.#collectSeen();
    const receipt = this.#receipt(facts, new Date().toISOString(), false);
    receipt.run = insertRunRow(this.#ctx.db, receipt);
    exec(db, saveLastRun(sqliteDialect, sync.name, receipt.run));
    return receipt;
  }

  #apply(facts: RunFacts): RunReceipt {
    const { db, sync, mode } = this.#ctx;
    const now = new Date().toISOString();
    const receipt = this.#receipt(facts, now, true);
    const run = (receipt.run = insertRunRow(db, receipt));
    const name = sync.name;
    const [stage, seen, delta] = [this.#stage, this.#seen, this.#delta];
    const one = (sql: string, ...params: unknown[]) => (db.prepare(sql).raw().get(...params) as [number])[0];

    const { distinct, repeats } = this.#collectSeen();
    if (repeats > 0 || dataVersion(db) !== this.#snapshot) {
      db.exec(`DELETE FROM ${delta}`);
      this.#comparison(false).run(name);
    }
    const fresh = one(`SELECT count(*) FROM ${delta} WHERE NOT held`);
    this.#counts.new = fresh;
    if (!this.baseline) exec(db, newChanges(sqliteDialect, delta, run, name, now));
    const { changed, held } = this.#recordFieldChanges(run, now);
    this.#counts.changed = changed;
    // A tender new to the sync and changed since another sync stored it is both: not unchanged.
    this.#counts.unchanged = distinct - fresh - held;

    // Only documents that are new, changed or back are written, in the walk's order: many by reading
    // the stage as it was written, a few by finding them in it.
    const differing = one(`SELECT count(*) FROM ${delta} WHERE differs`);
    const rebuild = this.#bulk(differing);
    const rows =
      differing > distinct / 8
        ? `${stage} s CROSS JOIN ${seen} x ON x.id = s.id AND x.row = s.rowid CROSS JOIN ${delta} d ON d.id = s.id WHERE d.differs`
        : `${delta} d CROSS JOIN ${seen} x ON x.id = d.id CROSS JOIN ${stage} s ON s.rowid = x.row WHERE d.differs ORDER BY x.row`;
    db.prepare(
      `INSERT INTO tenders (${STAGED_COLUMNS}, first_seen)
       SELECT ${STAGED_COLUMNS.replace(/\w+/g, 's.$&')}, ? FROM ${rows}
       ON CONFLICT (id) DO UPDATE SET ${STAGED_COLUMNS.replace('id, ', '').replace(/\w+/g, '$& = excluded.$&')}, gone_at = NULL`,
    ).run(now);
    for (const s of cpvStatements(sqliteDialect, delta)) exec(db, s);
    const recodedFrom = recodeSqlite(db, this.#ctx.cpvPaths);
    rebuild();
    // Before the membership is written: only the tenders the sync held before the run are looked at.
    if (mode === 'full') {
      const [mark, ...record] = goneStatements(sqliteDialect, `EXISTS (SELECT 1 FROM ${seen} x WHERE x.id = sync_tenders.id)`, run, name, now);
      this.#counts.gone = exec(db, mark!);
      if (this.#counts.gone > 0) for (const s of record) exec(db, s);
    }
    // A full run saw every tender the sync still holds (in key order, a row at a time), and holds the new and back
    // ones now; a new-only run leaves the ones the sync holds as they were (their last_seen too).
    if (mode === 'full') exec(db, lastSeen(sqliteDialect, name, now));
    exec(db, joinSync(sqliteDialect, delta, name, now));

    exec(db, saveSync(sqliteDialect, sync, run, now));
    const c = this.#counts;
    exec(db, saveCounts(sqliteDialect, run, c));
    receipt.counts = { ...c };
    return recodedFrom ? { ...receipt, recodedFrom } : receipt;
  }

  /**
   * Makes #seen (the last of repeated ids counts: one sort of the narrow ids,
   * written in key order) and counts the staged tenders that repeated an id;
   * returns how many distinct ones the run holds, and those repeats.
   */
  #collectSeen(): { distinct: number; repeats: number } {
    const { db } = this.#ctx;
    db.exec(`CREATE TABLE ${this.#seen} (id TEXT PRIMARY KEY, row INTEGER NOT NULL) WITHOUT ROWID`);
    const distinct = db.prepare(`INSERT INTO ${this.#seen} (id, row) SELECT id, max(row) FROM ${this.#ids} GROUP BY id ORDER BY id`).run().changes;
    const [staged] = this.#next.get() as [number];
    const repeats = staged - 1 - distinct;
    this.#counts.repeated += repeats;
    return { distinct, repeats };
  }

  /**
   * The comparison of staged and stored documents into the delta: the staged
   * tenders the sync does not hold (`held` 0), and those whose document is not
   * stored as it is now (`differs` 1). A new-only run looks at the first kind
   * only. `page`: the stage's rows from a row number on (a later repeat of an
   * id replaces its row); else every staged tender once, the last of its repeats.
   */
  #comparison(page: boolean): Statement {
    const { db, mode } = this.#ctx;
    const differs = 't.id IS NULL OR t.gone_at IS NOT NULL OR t.doc <> s.doc';
    const rows = page ? `${this.#stage} s` : `${this.#seen} x CROSS JOIN ${this.#stage} s ON s.rowid = x.row`;
    return db.prepare(
      `INSERT OR REPLACE INTO ${this.#delta} (id, held, differs)
       SELECT s.id, m.id IS NOT NULL, ${differs} FROM ${rows}
         LEFT JOIN sync_tenders m ON m.sync = ? AND m.id = s.id AND m.gone_at IS NULL
         LEFT JOIN tenders t ON t.id = s.id
       WHERE ${page ? 's.rowid >= ?' : 'true'} AND (m.id IS NULL ${mode === 'full' ? `OR ${differs}` : ''})`,
    );
  }

  /**
   * One `changed` row per changed field of every staged tender whose stored
   * document differs, whichever sync stored it (a change is recorded once, by
   * the run that sees it first). Returns how many tenders changed, and how many of them the sync held.
   */
  #recordFieldChanges(run: number, now: string): Changed {
    const { db, sync } = this.#ctx;
    const read = db
      .prepare(
        `SELECT d.id, t.doc, s.doc, d.held FROM ${this.#delta} d JOIN ${this.#seen} x ON x.id = d.id JOIN ${this.#stage} s ON s.rowid = x.row
           JOIN tenders t ON t.id = d.id
         WHERE d.differs AND d.id > ? AND t.doc <> s.doc ORDER BY d.id LIMIT ${DIFF_BATCH}`,
      )
      .raw();
    const insert = db.prepare("INSERT INTO changes (run, sync, id, kind, field, old, new, at) VALUES (?, ?, ?, 'changed', ?, ?, ?, ?)");
    const counted: Changed = { changed: 0, held: 0 };
    let after = '';
    for (;;) {
      const rows = read.all(after) as DifferingRow[];
      const found = fieldChangeRows(rows);
      for (const [id, field, old, value] of found.changes) insert.run(run, sync.name, id, field, old, value, now);
      counted.changed += found.changed;
      counted.held += found.held;
      if (rows.length < DIFF_BATCH) return counted;
      after = rows[rows.length - 1]![0];
    }
  }

  /**
   * Before writing `rows` tenders: when they are many, and more than the table
   * holds (a first sync), drops the indexes of `tenders` and the trigger that
   * indexes each row for full-text search, to be built again by the function
   * returned once they are written: sorting once beats inserting at random
   * places in every index (the full-text index builds in a third of the time).
   * Inside the run's transaction, readers keep their indexes. Otherwise the
   * returned function does nothing.
   */
  #bulk(rows: number): () => void {
    const { db } = this.#ctx;
    const held = (db.prepare('SELECT count(*) FROM tenders').raw().get() as [number])[0];
    if (rows < BULK_ROWS || rows < held) return () => undefined;
    for (const sql of TENDER_INDEXES) db.exec(`DROP INDEX IF EXISTS ${indexName(sql)}`);
    db.exec('DROP TRIGGER tenders_fts_insert');
    return () => {
      for (const sql of TENDER_INDEXES) db.exec(sql);
      db.exec(FTS_INSERT_TRIGGER);
      // Built in one go, then merged into one segment: a full-text query over 200 000 tenders reads one b-tree, not dozens.
      db.exec("INSERT INTO tenders_fts (tenders_fts) VALUES ('rebuild')");
      db.exec("INSERT INTO tenders_fts (tenders_fts) VALUES ('optimize')");
    };
  }

  #receipt(facts: RunFacts, ended: string, complete: boolean): RunReceipt {
    const { sync, mode } = this.#ctx;
    return runReceipt({ sync, mode, baseline: this.baseline, startedAt: this.#started, counts: this.#counts }, facts, ended, complete);
  }
}

function dataVersion(db: Database): number {
  return (db.prepare('PRAGMA data_version').raw().get() as [number])[0];
}
