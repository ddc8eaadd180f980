/**
 * A sync run into PostgreSQL. The run has a connection of its own (from the
 * store's pool) holding the sync's advisory lock. Pages are COPied into a
 * TEMP table of that connection: private, unlogged, and dropped by the server
 * when the connection ends, killed or not. Commit applies the stage in one
 * transaction (after the commit lock, so two syncs' commits do not interleave):
 * readers see the copy before or after the run, never half of it, and a run
 * that never commits leaves every table as it was.
 *
 * Each COPY is compared with the stored documents as soon as the server has
 * it (while the walk fetches the next pages), into a small TEMP table of the
 * tenders that are new to the sync or whose document is new, changed or back
 * (`delta`), and the server parses each document into jsonb as it arrives: the
 * commit drives the rest from `delta`, so a re-sync in which little changed
 * writes little and a first sync's commit only writes. When another sync (or
 * forget) committed in between, or an id came twice, the commit compares again.
 */

import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { RunError } from '../errors.js';
import { DEFAULT_CPV_PATHS, sameCpvPaths } from '../model/cpv.js';
import { recodePostgres } from './cpv-recode.js';
import { tenderId } from './columns.js';
import { COPY_COLUMNS, copyRow } from './postgres-copy-row.js';
import { commits, finishTables, makeCopyWaiting, makesCopy } from './postgres-new-copy.js';
import { compareStage, createStage, recordFieldChanges } from './postgres-stage.js';
import { runReceipt } from './run-receipt.js';
import { waited } from './rules.js';
import { postgresDialect, type Statement } from './sql/dialect.js';
import { cpvStatements, goneStatements, insertRun, joinSync, lastSeen, newChanges, saveCounts, saveCpvPaths, saveLastRun, saveSync } from './sql/writes.js';
import type { RunCounts, RunFacts, RunMode, RunReceipt, SyncDefinition, SyncRun } from './store.js';

/** Staged rows sent in one COPY: fewer round trips than one per page, memory still bounded. */
const COPY_ROWS = 1000;
/** The bytes a COPY's buffer starts with: most COPYs of 1000 rows fit (it grows for those that do not). */
const COPY_BYTES = 1 << 20;

export interface RunContext {
  client: pg.PoolClient;
  sync: SyncDefinition;
  mode: RunMode;
  baseline: boolean;
  /** Where the run's tenders' CPV codes are read from (RunOptions.cpvPaths): the copy's, once it commits. */
  cpvPaths: readonly string[];
  /** The advisory key serialising commits, and how long a commit waits for it (ms). */
  commitKey: string;
  /** The schema has no tables yet: this run may make the copy (see #building), under the advisory key of upgrades. */
  newCopy: boolean;
  migrateKey: string;
  busyTimeoutMs: number;
  /** Says what the copy is, for the busy error. */
  location: string;
  /** The schema the tables are in. */
  schema: string;
  /** A failure of the server as one line naming the copy (password-free); RunError and UsageError as they are. */
  fail(err: unknown): Error;
  /** The run's interruption: a commit under way is cancelled (OpenOptions.signal). */
  signal?: AbortSignal;
  /** Cancels the statement the run's connection is in. */
  cancel(): Promise<void>;
  /** Gives the connection back (its sync lock released, or the connection closed on `broken`). */
  release(broken: boolean): Promise<void>;
}

export class PostgresRun implements SyncRun {
  readonly baseline: boolean;
  readonly #ctx: RunContext;
  readonly #started = new Date().toISOString();
  readonly #counts: RunCounts = { new: 0, changed: 0, gone: 0, unchanged: 0, seen: 0, repeated: 0, withoutId: 0 };
  #staged = 0;
  /** Rows of the stage the server has compared (the stage's n runs from 1 in the walk's order). */
  #compared = 0;
  /** Staged rows whose id an earlier row had: counted per COPY. */
  #repeats = 0;
  /** The copy's commits as of the run's start (see #commits): the comparisons are trusted while it holds. */
  readonly #before: string;
  #ended = false;
  /** Rows waiting for the next COPY, as the bytes of its text (the first #bytes), and how many. */
  #buffer = Buffer.allocUnsafe(COPY_BYTES);
  #bytes = 0;
  #buffered = 0;
  /** The COPY under way (one at a time: memory stays bounded), and the first that failed. */
  #copying: Promise<void> = Promise.resolve();
  #failed: unknown;
  /**
   * The first run of a new copy: its transaction made the tables and stays
   * open to the commit, its tenders are COPied straight into `tenders` as
   * pages come, and the table's key and indexes are built at the end (a
   * repeated id's earlier rows removed first). Nobody sees the copy before it
   * commits (as nobody sees a SQLite copy before its first sync links it in
   * place), so nothing waits on its rows meanwhile.
   */
  readonly #building: boolean;
  /** A transaction of the run is open on its connection. */
  #open: boolean;

  /**
   * The copy's tables exist. A run that starts while another run makes the
   * copy stages its pages without comparing them, and makes the copy (or
   * waits for the other run to, bounded) at its commit, which compares them all.
   */
  #made: boolean;

  private constructor(ctx: RunContext, before: string, building: boolean, made: boolean) {
    this.#ctx = ctx;
    this.baseline = ctx.baseline;
    this.#before = before;
    this.#building = building;
    this.#open = building;
    this.#made = made;
    // A connection lost between COPYs (its lock with it) fails the walk at its next page, not at the next COPY.
    ctx.client.on('error', this.#lost);
  }

  readonly #lost = (err: unknown) => void (this.#failed ??= err);

  static async start(ctx: RunContext): Promise<PostgresRun> {
    const copy = ctx.newCopy ? await makesCopy(ctx) : 'made';
    if (copy === 'building') return new PostgresRun(ctx, '', true, false);
    await createStage(ctx.client);
    return copy === 'made' ? new PostgresRun(ctx, await commits(ctx.client), false, true) : new PostgresRun(ctx, '', false, false);
  }

  async known(ids: readonly string[]): Promise<Set<string>> {
    if (!this.#made) return new Set();
    const { rows } = await this.#ctx.client
      .query<{ id: string }>('SELECT id FROM sync_tenders WHERE sync = $1 AND gone_at IS NULL AND id = ANY($2::text[])', [this.#ctx.sync.name, ids])
      .catch((err: unknown) => {
        throw this.#ctx.fail(err);
      });
    return new Set(rows.map((r) => r.id));
  }

  async add(tenders: readonly Record<string, unknown>[]): Promise<void> {
    this.#live();
    // A COPY that failed (a lost server, a document it cannot hold) fails the walk at its next page,
    // as a SQLite run's does: no more pages are fetched for a run that cannot commit.
    if (this.#failed) throw this.#ctx.fail(this.#failed);
    // A new copy's rows go straight into tenders, with their first_seen.
    const tail = this.#building ? `\t${this.#started}\n` : '\n';
    for (const tender of tenders) {
      this.#counts.seen++;
      const id = tenderId(tender);
      if (id === undefined) {
        this.#counts.withoutId++;
        continue;
      }
      const { text, unstorable } = copyRow(id, tender, tail, this.#ctx.cpvPaths);
      if (unstorable) this.#failed ??= unstorable;
      this.#put(text);
      this.#buffered++;
    }
    if (this.#buffered >= COPY_ROWS) await this.#flush();
  }

  /**
   * Adds a row's text to the COPY's bytes as it comes. One string of a COPY's rows, made of
   * a piece per row, cost the walk's thread 0.1-0.2 s more per 50 000 rows (measured): flattening
   * it, and its UTF-8 encoding then.
   */
  #put(row: string): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    if (this.#bytes + row.length * 3 > this.#buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#bytes + row.length * 3));
      this.#buffer.copy(bigger, 0, 0, this.#bytes);
      this.#buffer = bigger;
    }
    this.#bytes += this.#buffer.write(row, this.#bytes, 'utf8');
  }

  /**
   * Sends the buffered rows in one COPY, after the one under way, then has
   * the server compare them: the walk fetches its next pages while the server
   * takes these. A failure surfaces at commit.
   */
  async #flush(): Promise<void> {
    await this.#copying;
    if (this.#failed) {
      // The run fails at commit: what comes until then is dropped, not kept.
      this.#bytes = 0;
      this.#buffered = 0;
    }
    if (this.#buffered === 0) return;
    const text = this.#buffer.subarray(0, this.#bytes);
    const from = this.#compared;
    const to = (this.#compared += this.#buffered);
    this.#staged += this.#buffered;
    this.#buffer = Buffer.allocUnsafe(COPY_BYTES);
    this.#bytes = 0;
    this.#buffered = 0;
    this.#copying = new Promise<void>((resolve, reject) => {
      // A new copy's rows go in frozen (its transaction made the table): readers after the commit set no hint
      // bits on every page, and the visibility map lets count --by read an index alone from the first query on.
      const into = this.#building ? `tenders (${COPY_COLUMNS}, first_seen) FROM STDIN (FREEZE)` : `stage (${COPY_COLUMNS}) FROM STDIN`;
      const stream = this.#ctx.client.query(copyFrom(`COPY ${into}`));
      stream.on('error', reject);
      stream.on('finish', resolve);
      stream.end(text);
    })
      .then(async () => {
        if (this.#made) this.#repeats += await compareStage(this.#ctx.client, this.#ctx.sync.name, this.#ctx.mode, from, to);
      })
      .catch((err: unknown) => {
        this.#failed ??= err;
      });
  }

  async commit(facts: RunFacts): Promise<RunReceipt> {
    this.#live();
    const { client, signal } = this.#ctx;
    // Ctrl-C during the commit: a statement the server is in is cancelled, and the transaction is
    // rolled back before its COMMIT (an interruption between statements is seen at the next check).
    const cancel = () => void this.#ctx.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    let broken = false;
    try {
      await this.#flush();
      await this.#copying;
      // A page the run could not take fails a complete run, which goes on (as a SQLite run does): its
      // caller ends it with its receipt (an incomplete commit, which records why) or aborts it.
      if (this.#failed && facts.complete) throw this.#ctx.fail(this.#failed);
      if (facts.complete) signal?.throwIfAborted();
      // A new copy's complete first run is in its transaction already; an incomplete one records its receipt alone, in a copy made as usual.
      const built = this.#building && facts.complete;
      if (!built) {
        await this.#rollback();
        if (!this.#made) {
          await makeCopyWaiting(this.#ctx);
          this.#made = true;
        }
        await client.query('BEGIN');
        this.#open = true;
      }
      try {
        await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(this.#ctx.busyTimeoutMs))}`);
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [this.#ctx.commitKey]).catch((err: unknown) => {
          if ((err as { code?: string }).code === '55P03') throw this.#busy();
          throw err;
        });
        const receipt = !facts.complete ? await this.#receiptOnly(facts) : built ? await this.#finishCopy(facts) : await this.#apply(facts);
        if (facts.complete) signal?.throwIfAborted();
        await client.query('COMMIT');
        this.#open = false;
        return receipt;
      } catch (err) {
        await this.#rollback().catch(() => (broken = true));
        throw err;
      }
    } catch (err) {
      throw signal?.aborted && facts.complete ? signal.reason : this.#ctx.fail(err);
    } finally {
      signal?.removeEventListener('abort', cancel);
      await this.#end(broken);
    }
  }

  async abort(): Promise<void> {
    await this.#end(false);
  }

  async #end(broken: boolean): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    let failed = broken;
    await this.#copying;
    if (!failed) await this.#rollback().catch(() => (failed = true));
    if (!failed) await this.#ctx.client.query('DROP TABLE IF EXISTS stage; DROP TABLE IF EXISTS delta').catch(() => (failed = true));
    this.#ctx.client.off('error', this.#lost);
    await this.#ctx.release(failed);
  }

  /** Ends the run's open transaction, if any, undone. */
  async #rollback(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await this.#ctx.client.query('ROLLBACK');
  }

  #live(): void {
    if (this.#ended) throw new Error('this sync run has ended');
  }

  #busy(): RunError {
    return new RunError(
      `${this.#ctx.location} is busy: another sync has been committing for more than ${waited(this.#ctx.busyTimeoutMs)}; try again when it is done`,
    );
  }

  /**
   * Inside the commit's transaction, after its lock: keeps the last copy of a
   * repeated id, and compares the whole stage again when the comparisons made
   * during the walk cannot be trusted (an id came twice, whose earlier copy was
   * compared; or another sync or forget committed since the run started).
   * A run that compared nothing while it walked (the copy was being made)
   * has its repeats looked for here.
   */
  async #settle(): Promise<void> {
    const { client } = this.#ctx;
    const repeated = this.#repeats > 0 || this.#before === '';
    if (repeated) this.#counts.repeated = (await client.query('DELETE FROM stage a USING stage b WHERE a.id = b.id AND a.n < b.n')).rowCount ?? 0;
    if (repeated || (await commits(client)) !== this.#before) {
      await client.query('TRUNCATE delta');
      this.#repeats += await compareStage(client, this.#ctx.sync.name, this.#ctx.mode, 0, this.#staged);
    }
    await client.query('ANALYZE delta');
  }

  /** The end of a new copy's first run, its tenders written: the indexes, the membership, the sync and its receipt. */
  async #finishCopy(facts: RunFacts): Promise<RunReceipt> {
    const { client, sync } = this.#ctx;
    const now = new Date().toISOString();
    this.#counts.repeated = await finishTables(client, sync.name, now);
    this.#counts.new = this.#staged - this.#counts.repeated;
    const receipt = this.#receipt(facts, now, true);
    receipt.run = await this.#insertRun(receipt);
    await this.#exec(saveSync(postgresDialect, sync, receipt.run, now));
    // Its tenders' codes were read with the run's paths: a new copy records them (the default it need not).
    if (!sameCpvPaths(this.#ctx.cpvPaths, DEFAULT_CPV_PATHS)) await this.#exec(saveCpvPaths(postgresDialect, this.#ctx.cpvPaths));
    // New tables have no statistics until autovacuum comes by (up to a minute or more): planned blind,
    // a whole export --local or download of 50 000 tenders joined them in a nested loop (100 s, not 1.4 s).
    // A sample of each (about a second at 50 000 tenders) plans the first reads as every later one.
    await client.query('ANALYZE tenders, sync_tenders, tender_cpv');
    return receipt;
  }

  async #receiptOnly(facts: RunFacts): Promise<RunReceipt> {
    this.#counts.repeated = this.#repeats;
    const receipt = this.#receipt(facts, new Date().toISOString(), false);
    receipt.run = await this.#insertRun(receipt);
    await this.#exec(saveLastRun(postgresDialect, this.#ctx.sync.name, receipt.run));
    return receipt;
  }

  async #apply(facts: RunFacts): Promise<RunReceipt> {
    const { client, sync, mode } = this.#ctx;
    const q = async (sql: string, params: unknown[] = []) => client.query(sql, params);
    const count = async (sql: string, params: unknown[] = []) => Number(((await q(sql, params)).rows[0] as { n: string }).n);
    // Before the run's own receipt: #settle reads the runs table to see whether anyone else committed.
    await this.#settle();
    const now = new Date().toISOString();
    const receipt = this.#receipt(facts, now, true);
    const run = (receipt.run = await this.#insertRun(receipt));
    const name = sync.name;
    const distinct = this.#staged - this.#counts.repeated;
    const fresh = await count('SELECT count(*) AS n FROM delta WHERE NOT held');
    this.#counts.new = fresh;
    if (!this.baseline) await this.#exec(newChanges(postgresDialect, 'delta', run, name, now));
    const { changed, held } = await recordFieldChanges(client, run, name, now);
    this.#counts.changed = changed;
    // A tender new to the sync and changed since another sync stored it is both: not unchanged.
    this.#counts.unchanged = distinct - fresh - held;

    // Only documents that are new, changed or back are written: the ones no row holds as plain inserts (`stored` is
    // exact under the commit lock, see #settle; an upsert's speculative insertion cost a first sync a tenth of its commit).
    await q(
      `INSERT INTO tenders (${COPY_COLUMNS}, first_seen)
       SELECT ${COPY_COLUMNS.replace(/\w+/g, 's.$&')}, $1 FROM delta d JOIN stage s ON s.id = d.id WHERE d.differs AND NOT d.stored`,
      [now],
    );
    await q(
      `UPDATE tenders t SET ${COPY_COLUMNS.replace(/\w+/g, '$& = s.$&').replace('id = s.id, ', '')}, gone_at = NULL
       FROM delta d JOIN stage s ON s.id = d.id WHERE d.differs AND d.stored AND t.id = d.id`,
    );
    for (const s of cpvStatements(postgresDialect, 'delta')) await this.#exec(s);
    const recodedFrom = await recodePostgres(client, this.#ctx.cpvPaths);
    // A full run saw every tender the sync still holds once the gone ones are marked (a baseline held nothing, so
    // nothing of it can be gone): one in-place update; the new and back ones, which `delta` holds, are inserted (a
    // baseline's as plain inserts: its sync holds no row yet). A new-only run leaves the held ones as they were.
    if (mode === 'full' && !this.baseline) {
      const [mark, ...record] = goneStatements(postgresDialect, 'EXISTS (SELECT 1 FROM stage s WHERE s.id = sync_tenders.id)', run, name, now);
      this.#counts.gone = await this.#exec(mark!);
      if (this.#counts.gone > 0) for (const s of record) await this.#exec(s);
      await this.#exec(lastSeen(postgresDialect, name, now));
    }
    await this.#exec(joinSync(postgresDialect, 'delta', name, now, !this.baseline));

    await this.#exec(saveSync(postgresDialect, sync, run, now));
    const c = this.#counts;
    await this.#exec(saveCounts(postgresDialect, run, c));
    receipt.counts = { ...c };
    return recodedFrom ? { ...receipt, recodedFrom } : receipt;
  }

  #receipt(facts: RunFacts, ended: string, complete: boolean): RunReceipt {
    const { sync, mode } = this.#ctx;
    return runReceipt({ sync, mode, baseline: this.baseline, startedAt: this.#started, counts: this.#counts }, facts, ended, complete);
  }

  async #insertRun(r: RunReceipt): Promise<number> {
    const s = insertRun(postgresDialect, r);
    const { rows } = await this.#ctx.client.query<{ run: number }>(`${s.sql} RETURNING run`, s.params);
    return rows[0]!.run;
  }

  /** Runs `s` on the run's connection; how many rows it changed. */
  async #exec(s: Statement): Promise<number> {
    return (await this.#ctx.client.query(s.sql, s.params)).rowCount ?? 0;
  }
}
