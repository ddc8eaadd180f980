/**
 * What the store reads, written once for both engines: counts, the history,
 * the syncs and their receipts, the status. Each engine hands in how it runs a
 * statement (a Reader: SQLite's synchronous calls, a PostgreSQL snapshot's
 * client) and turns its errors into the store's; rows come back as arrays.
 */

import { UsageError } from '../../errors.js';
import { cpvAtLevel, DEFAULT_CPV_PATHS, parseCpvPaths } from '../../model/cpv.js';
import type { JsonObject } from '../../model/exact-json.js';
import { parseJson } from '../../model/json-parse.js';
import type { LocalSelection } from '../../model/local-selection.js';
import { snake, sortCounts, stringColumn, timestamp } from '../columns.js';
import { RUN_COLUMNS } from '../run-receipt.js';
import { dotPathKeys } from '../rules.js';
import type { ChangeFilter, ChangePageOptions, ChangeRecord, ChangeSearch, CountOptions, KeyedChange, LocalCounts, RunReceipt, StoredTender, StoreStatus, SyncInfo } from '../store.js';
import { statement, type Sql, type SqlDialect, type Statement } from './dialect.js';
import { fromWhere, keepsAll } from './selection.js';

/** Runs a statement and gives its rows, each an array of its columns. */
export type Reader = (statement: Statement) => Promise<unknown[][]>;

/** The first column of the first row. */
async function one(read: Reader, s: Statement): Promise<unknown> {
  return (await read(s))[0]?.[0];
}

/** Exact counts of the selection, by a dot path (or `cpv`, the tenders' codes); see Store.count. */
export async function countTenders(read: Reader, d: SqlDialect, selection: LocalSelection, byPath?: string, options: CountOptions = {}): Promise<LocalCounts> {
  if (byPath === undefined && options.atMost !== undefined) {
    // The engine stops at the limit instead of counting every selected tender.
    const atMost = Math.max(0, Math.floor(options.atMost));
    return { total: Number(await one(read, statement(d, (sql) => `SELECT count(*) FROM (SELECT 1 ${fromWhere(selection, false, sql)} LIMIT ${atMost}) capped`))), rows: [] };
  }
  const total = Number(await one(read, statement(d, (sql) => `SELECT count(*) ${fromWhere(selection, false, sql)}`)));
  if (byPath === undefined) return { total, rows: [] };
  const group = async (value: (sql: Sql) => string, where = '') =>
    (await read(statement(d, (sql) => `SELECT ${value(sql)} AS v, count(*) ${fromWhere(selection, false, sql)}${where} GROUP BY v`))).map(
      ([v, n]) => [v as string | null, Number(n)] as [string | null, number],
    );
  let rows: [string | null, number][];
  if (byPath === 'cpv') rows = await cpvGroups(read, d, selection, options.cpvLevel ?? 8, total);
  else {
    const keys = dotPathKeys(byPath);
    const column = stringColumn(byPath);
    // A string field's typed column holds its value (read from an index, not from the JSON); the
    // tenders whose field is no string (or absent) are counted from their documents.
    rows = column
      ? [
          ...(await group(() => d.quote(`t.${snake(column)}`), ` AND t.${snake(column)} IS NOT NULL`)),
          ...(await group((sql) => d.docAt(keys, sql), ` AND t.${snake(column)} IS NULL`)),
        ]
      : await group((sql) => d.docAt(keys, sql));
    if (rows.every(([v]) => v === null) && (await read(statement(d, (sql) => d.anyHas(keys, sql)))).length === 0) {
      const doc = await one(read, { sql: `SELECT ${d.docText} FROM tenders WHERE gone_at IS NULL LIMIT 1`, params: [] });
      const any = doc !== undefined || (await read({ sql: 'SELECT 1 FROM tenders LIMIT 1', params: [] })).length > 0;
      if (any) throw new UsageError(`no stored tender has a field '${byPath}': ${fieldHint(doc as string | undefined)}`);
    }
  }
  sortCounts(rows);
  return { total, rows: rows.map(([v, n]) => ({ value: v === null ? undefined : parseJson(v), count: n })) };
}

/**
 * The selection's tenders per CPV code cut to `level` (8: each code), a tender once per group
 * it falls in; tenders without a code as one row of no value.
 */
async function cpvGroups(read: Reader, d: SqlDialect, selection: LocalSelection, level: number, total: number): Promise<[string | null, number][]> {
  const digits = Math.floor(level);
  let groups: unknown[][];
  let coded: number;
  if (keepsAll(selection, d)) {
    // Every tender not gone: their codes are tender_cpv's rows, read without a look at the tenders.
    const rows = await read({ sql: d.codeGroups(digits), params: [] });
    groups = rows.filter(([v]) => v !== null);
    coded = Number(rows.find(([v]) => v === null)?.[1] ?? 0);
  } else {
    // The selection's tenders joined to their codes (read from the index of codes, each tender looked up by its key).
    const codes = (sql: Sql) => fromWhere(selection, false, sql, {}, 'tender_cpv');
    groups = await read(statement(d, (sql) => `SELECT substr(c.code, 1, ${digits}) AS v, count(${digits < 8 ? 'DISTINCT c.id' : '*'}) ${codes(sql)} GROUP BY v`));
    coded = Number(await one(read, statement(d, (sql) => `SELECT count(DISTINCT c.id) ${codes(sql)}`)));
  }
  const none = total - coded;
  const rows = groups.map(([v, n]) => [JSON.stringify(cpvAtLevel(v as string, digits)), Number(n)] as [string | null, number]);
  return none > 0 ? [[null, none], ...rows] : rows;
}

/** The field paths of one stored tender's document, as examples of what --by takes. */
function fieldHint(doc: string | undefined): string {
  const paths: string[] = [];
  const walk = (value: unknown, prefix: string) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value)) walk(child, prefix ? `${prefix}.${key}` : key);
    } else if (prefix) paths.push(prefix);
  };
  if (doc !== undefined) walk(JSON.parse(doc), '');
  return paths.length ? `a dot path into the tenders, one of ${paths.slice(0, 20).join(', ')}` : 'a dot path into the tenders, as in buyer.name';
}

/**
 * The history's rows the filter keeps, oldest first (by run, tender, as recorded), after the
 * row `(run, id, seq)` of the statement's first three values (0, '', 0: from the start).
 */
export function changesStatement(d: SqlDialect, filter: ChangeFilter, limit?: number): Statement {
  return statement(d, (sql) => {
    const where = [`(c.run, c.id, c.seq) > (${sql.value(0)}, ${sql.value('')}, ${sql.value(0)})`];
    if (filter.sync !== undefined) where.push(countsFor([filter.sync], sql));
    if (filter.since !== undefined) where.push(`c.at >= ${sql.value(timestamp(filter.since), 'timestamp')}`);
    if (filter.id !== undefined) where.push(`c.id = ${sql.value(filter.id)}`);
    return `SELECT c.run, c.sync, c.id, c.kind, c.field, ${d.jsonText('c.old')}, ${d.jsonText('c.new')}, c.at, c.seq FROM changes c
      WHERE ${where.join(' AND ')} ORDER BY c.run, c.id, c.seq${limit === undefined ? '' : ` LIMIT ${limit}`}`;
  });
}

/**
 * The changes that count for any of `syncs`: their runs' own, and a change another sync recorded
 * when one of them held the tender then: from its first run that matched it until it stopped
 * matching it (not before it existed).
 */
function countsFor(syncs: readonly string[], sql: Sql): string {
  const any = (column: string) => sql.dialect.anyOf(column, syncs, sql, 'text');
  return `(${any('c.sync')} OR (c.kind = 'changed' AND EXISTS (SELECT 1 FROM sync_tenders m WHERE ${any('m.sync')}
           AND m.id = c.id AND m.first_seen <= c.at AND (m.gone_at IS NULL OR c.at <= m.gone_at))))`;
}

/** The conditions of a change search (`AND`ed), from the first page's or after the keyset `before`. */
function searchConditions(search: ChangeSearch, sql: Sql, before?: ChangePageOptions['before']): string {
  const where = ['1 = 1'];
  if (search.syncs !== undefined) where.push(search.syncs.length ? countsFor(search.syncs, sql) : '1 = 0');
  if (search.since !== undefined) where.push(`c.at >= ${sql.value(timestamp(search.since), 'timestamp')}`);
  if (search.kinds !== undefined) where.push(search.kinds.length ? sql.dialect.anyOf('c.kind', search.kinds, sql, 'text') : '1 = 0');
  if (search.id !== undefined) where.push(`c.id = ${sql.value(search.id)}`);
  if (before !== undefined) where.push(`(c.at, c.seq) < (${sql.value(timestamp(before.at), 'timestamp')}, ${sql.value(before.seq, 'number')})`);
  return where.join(' AND ');
}

/** A page of the changes a search selects, newest first (at, then seq: a keyset no write can shift), and their number when asked. */
export async function searchChanges(read: Reader, d: SqlDialect, search: ChangeSearch, options: ChangePageOptions = {}): Promise<{ changes: KeyedChange[]; total?: number }> {
  const limit = options.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(options.limit))}`;
  const rows = await read(
    statement(
      d,
      (sql) => `SELECT c.run, c.sync, c.id, c.kind, c.field, ${d.jsonText('c.old')}, ${d.jsonText('c.new')}, c.at, c.seq FROM changes c
        WHERE ${searchConditions(search, sql, options.before)} ORDER BY c.at DESC, c.seq DESC${limit}`,
    ),
  );
  const changes = rows.map((row) => ({ ...changeRecord(row), seq: Number(row[8]) }));
  if (!options.count) return { changes };
  return { changes, total: Number(await one(read, statement(d, (sql) => `SELECT count(*) FROM changes c WHERE ${searchConditions(search, sql)}`))) };
}

/** The secret tenders serve signs its cursors with (the one row of serve_secret), or undefined. */
export async function readCursorSecret(read: Reader): Promise<string | undefined> {
  return (await one(read, { sql: 'SELECT secret FROM serve_secret LIMIT 1', params: [] })) as string | undefined;
}

/**
 * Which state of the copy a read sees, as text that changes whenever a sync
 * commits (its run's row), a sync is forgotten (its runs go) or a new copy
 * takes the place of another (its last run ended at another time). What
 * `tenders serve` keeps answers by; a sync compares it to see whether another
 * committed while it walked.
 */
export async function readGeneration(read: Reader): Promise<string> {
  const [n, run, ended] = (await read({ sql: 'SELECT count(*), max(run), max(ended) FROM runs', params: [] }))[0] ?? [];
  return `${Number(n)}/${Number(run ?? 0)}/${ended instanceof Date ? ended.toISOString() : String(ended ?? '')}`;
}

/** The key of the meta row naming the paths the copy's CPV codes were read from (the cpv-paths setting of its last sync). */
export const CPV_PATHS_KEY = 'cpv_paths';

/** The paths the copy's CPV codes were read from: its meta row's, else (a copy no sync with another setting wrote) the default. */
export async function readCopyCpvPaths(read: Reader): Promise<readonly string[]> {
  return recordedCpvPaths(await one(read, { sql: `SELECT value FROM meta WHERE key = '${CPV_PATHS_KEY}'`, params: [] }));
}

/** The paths a meta row's value names. */
export function recordedCpvPaths(value: unknown): readonly string[] {
  return (typeof value === 'string' ? parseCpvPaths(value) : undefined) ?? DEFAULT_CPV_PATHS;
}

/** A row of changesStatement as a ChangeRecord. */
export function changeRecord(row: unknown[]): ChangeRecord {
  const [run, sync, id, kind, field, old, now, at] = row as [number, string, string, ChangeRecord['kind'], string | null, string | null, string | null, string];
  return { run: Number(run), sync, id, kind, field, old: old === null ? undefined : parseJson(old), new: now === null ? undefined : parseJson(now), at };
}

/** The syncs (of one name, or all, by name) with their last run. */
export async function readSyncs(read: Reader, d: SqlDialect, name?: string): Promise<SyncInfo[]> {
  const rows = await read(
    statement(
      d,
      (sql) =>
        `SELECT name, ${d.jsonText('query')}, service, created, last_run, last_complete FROM syncs ${name === undefined ? '' : `WHERE name = ${sql.value(name)}`} ORDER BY name`,
    ),
  );
  const infos: SyncInfo[] = [];
  for (const [sync, query, service, created, lastRun, lastComplete] of rows as [string, string, string, string, number | null, string | null][]) {
    const run = await read(statement(d, (sql) => `SELECT run, ${RUN_COLUMNS.replace('query', d.jsonText('query'))} FROM runs WHERE run = ${sql.value(lastRun)}`));
    const tenders = await one(read, statement(d, (sql) => `SELECT count(*) FROM sync_tenders WHERE sync = ${sql.value(sync)} AND gone_at IS NULL`));
    const lastChange = await one(
      read,
      statement(
        d,
        (sql) => `SELECT max(ended) FROM runs WHERE complete = ${sql.value(d.flag(true))} AND (baseline = ${sql.value(d.flag(true))}
          OR (sync = ${sql.value(sync)} AND new + changed + gone > 0) OR (sync <> ${sql.value(sync)} AND new + changed > 0))`,
      ),
    );
    infos.push({
      name: sync,
      query: parseJson(query) as JsonObject,
      service,
      created,
      lastRun: receiptOf(run[0]!),
      lastComplete: lastComplete ?? created,
      tenders: Number(tenders),
      lastChange: (lastChange ?? lastComplete ?? created) as string,
    });
  }
  return infos;
}

/** A `runs` row (run, then RUN_COLUMNS) as the receipt it records. */
function receiptOf(row: unknown[]): RunReceipt {
  const [run, sync, query, service, mode, baseline, started, ended, complete, pages, requests, ...rest] = row;
  const [n, changed, gone, unchanged, seen, repeated, withoutId] = rest.slice(0, 7).map(Number) as number[];
  return {
    run: Number(run),
    sync: sync as string,
    query: parseJson(query as string) as JsonObject,
    service: service as string,
    mode: mode as RunReceipt['mode'],
    baseline: Boolean(baseline),
    startedAt: started as string,
    endedAt: ended as string,
    complete: Boolean(complete),
    pages: Number(pages),
    requests: Number(requests),
    counts: { new: n!, changed: changed!, gone: gone!, unchanged: unchanged!, seen: seen!, repeated: repeated!, withoutId: withoutId! },
    error: rest[7] as string | null,
  };
}

/** How many syncs and tenders the copy holds, and how old it is (of `sync`, when given). */
export async function readStatus(read: Reader, d: SqlDialect, location: string, schemaVersion: number, sync?: string): Promise<StoreStatus> {
  const value = (build: (sql: Sql) => string) => one(read, statement(d, build));
  return {
    location,
    schemaVersion,
    syncs: Number(await value(() => 'SELECT count(*) FROM syncs')),
    tenders: Number(await value(() => 'SELECT count(*) FROM tenders WHERE gone_at IS NULL')),
    lastComplete: ((sync === undefined
      ? await value(() => 'SELECT max(last_complete) FROM syncs')
      : await value((sql) => `SELECT last_complete FROM syncs WHERE name = ${sql.value(sync)}`)) ?? null) as string | null,
  };
}

/** One tender as the copy holds it (gone ones too), with when it was first seen and the syncs that hold it; undefined for an id it does not hold. */
export async function readTender(read: Reader, d: SqlDialect, id: string): Promise<StoredTender | undefined> {
  const [row] = (await read(statement(d, (sql) => `SELECT ${d.docText}, first_seen, gone_at FROM tenders WHERE id = ${sql.value(id)}`))) as [string, string, string | null][];
  if (!row) return undefined;
  const syncs = await read(statement(d, (sql) => `SELECT sync FROM sync_tenders WHERE id = ${sql.value(id)} ORDER BY sync`));
  return { tender: parseJson(row[0]) as Record<string, unknown>, firstSeen: row[1], goneAt: row[2], syncs: syncs.map(([name]) => name as string) };
}

/** The names of the syncs, for a message naming the ones there are. */
export async function syncNames(read: Reader): Promise<string[]> {
  return (await read({ sql: 'SELECT name FROM syncs ORDER BY name', params: [] })).map(([name]) => name as string);
}

/** The statements that forget sync `name` at `now`, in order; the one `counted` removes the tenders no other sync holds. */
export function forgetStatements(d: SqlDialect, name: string, now: string): (Statement & { counted?: boolean })[] {
  const mine = (sql: Sql) => `SELECT id FROM sync_tenders WHERE sync = ${sql.value(name)}`;
  const others = (sql: Sql, table: string) => `SELECT 1 FROM sync_tenders o WHERE o.id = ${table}.id AND o.sync <> ${sql.value(name)}`;
  return [
    statement(d, (sql) => `DELETE FROM tender_cpv WHERE id IN (${mine(sql)}) AND NOT EXISTS (${others(sql, 'tender_cpv')})`),
    { ...statement(d, (sql) => `DELETE FROM tenders WHERE id IN (${mine(sql)}) AND NOT EXISTS (${others(sql, 'tenders')})`), counted: true },
    // Tenders other syncs keep only as gone: no sync matches them now.
    statement(
      d,
      (sql) =>
        `UPDATE tenders SET gone_at = ${sql.value(now, 'timestamp')} WHERE gone_at IS NULL AND id IN (${mine(sql)})
         AND NOT EXISTS (${others(sql, 'tenders')} AND o.gone_at IS NULL)`,
    ),
    // ...and their codes (tender_cpv holds those of tenders not gone).
    statement(
      d,
      (sql) => `DELETE FROM tender_cpv WHERE id IN (${mine(sql)}) AND EXISTS (SELECT 1 FROM tenders t WHERE t.id = tender_cpv.id AND t.gone_at IS NOT NULL)`,
    ),
    ...['sync_tenders', 'changes', 'runs'].map((table) => statement(d, (sql) => `DELETE FROM ${table} WHERE sync = ${sql.value(name)}`)),
    statement(d, (sql) => `DELETE FROM syncs WHERE name = ${sql.value(name)}`),
  ];
}
