/**
 * What the two engines' SQL differs in, and nothing else: placeholders, the
 * casts PostgreSQL needs where SQLite's affinity does without, lists of
 * values, booleans, the JSON at a dot path of a document, the elements of a
 * JSON array column, and a full-text match. The statements themselves are
 * written once (./selection.ts, ./reads.ts, ./writes.ts) against this object.
 */

import { tsquery } from '../postgres-fts.js';

/** How a bound value is compared: as text, a timestamp, a number, JSON text. */
export type SqlType = 'text' | 'timestamp' | 'number' | 'json';

/** Where words are looked for: title and buyer name, or the buyer's name alone. */
export type FtsTarget = 'all' | 'buyer_name';

export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /** The placeholder of a statement's `n`th value (from 1). */
  placeholder(n: number): string;
  /** A placeholder as a value of `type`. */
  cast(placeholder: string, type: SqlType): string;
  /** `column` is one of `values`. */
  anyOf(column: string, values: readonly unknown[], sql: Sql, type: SqlType): string;
  /** A boolean as the engine's columns hold it. */
  flag(value: boolean): unknown;
  /** The column of a tender's document as its exact JSON text. */
  readonly docText: string;
  /** The JSON text of the value at dot path `keys` in `t`'s document; NULL where there is none. */
  docAt(keys: readonly string[], sql: Sql): string;
  /** Whether any stored tender's document has a value at `keys` (a query of one row). */
  anyHas(keys: readonly string[], sql: Sql): string;
  /** A text column's value as JSON text. */
  quote(column: string): string;
  /** A JSON column as its text. */
  jsonText(column: string): string;
  /** `FROM` item of the elements of the JSON array text in `column`, each as `alias.value`. */
  elements(column: string, alias: string): string;
  /** `t` matches the full-text query `words` in `target`; `probe`: asked of one tender at a time (SQLite's plan, see FtsPlan). */
  matches(target: FtsTarget, words: string, sql: Sql, probe?: boolean): string;
  /**
   * The tenders per CPV code cut to `digits` (8: each code), a tender once per group, read from
   * tender_cpv alone (it holds the codes of the tenders not gone): rows (group, count), and
   * (NULL, how many tenders have a code).
   */
  codeGroups(digits: number): string;
}

/** One statement being built: its text is the caller's, its values are added in the order their placeholders appear. */
export class Sql {
  readonly params: unknown[] = [];
  constructor(readonly dialect: SqlDialect) {}

  /** The placeholder of `value`, compared as `type` when given. */
  value(value: unknown, type?: SqlType): string {
    this.params.push(value);
    const mark = this.dialect.placeholder(this.params.length);
    return type === undefined ? mark : this.dialect.cast(mark, type);
  }
}

/** A statement and its values, in the order of their placeholders. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** A statement built by `build` in `dialect`. */
export function statement(dialect: SqlDialect, build: (sql: Sql) => string): Statement {
  const sql = new Sql(dialect);
  const text = build(sql);
  return { sql: text, params: sql.params };
}

/** A dot path's keys as a SQLite JSON path: every key quoted, so a key may hold anything but a double quote. */
function sqlitePath(keys: readonly string[]): string {
  return `$${keys.map((key) => `."${key}"`).join('')}`;
}

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  placeholder: () => '?',
  cast: (placeholder) => placeholder,
  anyOf: (column, values, sql) => `${column} IN (${values.map((v) => sql.value(v)).join(', ')})`,
  flag: (value) => (value ? 1 : 0),
  docText: 'doc',
  docAt: (keys, sql) => `t.doc -> ${sql.value(sqlitePath(keys))}`,
  anyHas: (keys, sql) => `SELECT 1 FROM tenders WHERE doc -> ${sql.value(sqlitePath(keys))} IS NOT NULL LIMIT 1`,
  quote: (column) => `json_quote(${column})`,
  jsonText: (column) => column,
  elements: (column, alias) => `json_each(${column}) ${alias}`,
  matches(target, words, sql, probe = false) {
    const match = target === 'all' ? 'tenders_fts' : `tenders_fts.${target}`;
    return probe
      ? `EXISTS (SELECT 1 FROM tenders_fts f WHERE ${match} MATCH ${sql.value(words)} AND f.rowid = t.seq)`
      : `t.seq IN (SELECT rowid FROM tenders_fts WHERE ${match} MATCH ${sql.value(words)})`;
  },
  // Each group a range of the code index (its ids counted once in a b-tree of their own), the groups found by
  // stepping from one to the next (':' follows '9'): a GROUP BY of the cut codes sorts every row first, twice as slow.
  codeGroups: (digits) => `WITH RECURSIVE g(v) AS (
      SELECT substr(min(code), 1, ${digits}) FROM tender_cpv
      UNION ALL SELECT (SELECT substr(min(c.code), 1, ${digits}) FROM tender_cpv c WHERE c.code >= (g.v || ':')) FROM g WHERE g.v IS NOT NULL)
    SELECT v, (SELECT count(${digits < 8 ? 'DISTINCT c.id' : '*'}) FROM tender_cpv c WHERE c.code >= g.v AND c.code < (g.v || ':')) FROM g WHERE v IS NOT NULL
    UNION ALL SELECT NULL, count(DISTINCT id) FROM tender_cpv`,
};

const PG_TYPES: Record<SqlType, string> = { text: 'text', timestamp: 'timestamptz', number: 'numeric', json: 'json' };

/**
 * The value at dot path `keys` of a JSON document (`doc`, of json or jsonb: `typeOf` is its
 * json_typeof), stepping into objects only, as a dot path does everywhere else (--columns,
 * SQLite's JSON paths): PostgreSQL's #> takes a key of digits as an index into an array.
 */
function objectPath(doc: string, typeOf: 'json_typeof' | 'jsonb_typeof', keys: readonly string[], sql: Sql): string {
  const at = (n: number) => `${doc} #> ${sql.value(keys.slice(0, n))}::text[]`;
  // What #> reads as an index (strtol's way): spaces first, a sign, digits.
  const objects = keys.flatMap((key, i) => (i > 0 && /^\s*[+-]?\d+$/.test(key) ? [`${typeOf}(${at(i)}) = 'object'`] : []));
  return objects.length > 0 ? `CASE WHEN ${objects.join(' AND ')} THEN ${at(keys.length)} END` : `(${at(keys.length)})`;
}

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  placeholder: (n) => `$${n}`,
  cast: (placeholder, type) => `${placeholder}::${PG_TYPES[type]}`,
  // One value as `=`: an index whose next column is the order (tenders_buyer_country) then gives the rows in it, which `= ANY` does not.
  anyOf: (column, values, sql, type) => (values.length === 1 ? `${column} = ${sql.value(values[0], type)}` : `${column} = ANY(${sql.value(values)}::${PG_TYPES[type]}[])`),
  flag: (value) => value,
  docText: 'doc_text',
  // The document's exact text (json keeps every digit; jsonb would not).
  docAt: (keys, sql) => `(${objectPath('t.doc_text::json', 'json_typeof', keys, sql)})::text`,
  anyHas: (keys, sql) => `SELECT 1 FROM tenders WHERE ${objectPath('doc', 'jsonb_typeof', keys, sql)} IS NOT NULL LIMIT 1`,
  quote: (column) => `to_json(${column})::text`,
  jsonText: (column) => `${column}::text`,
  elements: (column, alias) => `json_array_elements_text(${column}::json) ${alias}(value)`,
  matches(target, words, sql) {
    // The buyer's words are weighted B in `tsv` (postgres-fts.ts tsvectorText).
    const query = tsquery(words, target === 'buyer_name' ? 'B' : undefined);
    return query === null ? 'false' : `t.tsv @@ ${sql.value(query)}::tsquery`;
  },
  // One pass: each tender's cut codes made distinct (a group of (id, group)), and its codes' rows one (a group of
  // (id) alone, its group NULL): counted per group. Measured against a count(DISTINCT) per group (which sorts every
  // row), and against an anti-join on the key: the same or slower, with or without the tables' statistics.
  codeGroups: (digits) => `SELECT v, count(*) FROM (SELECT id, substr(code, 1, ${digits}) AS v FROM tender_cpv
    GROUP BY GROUPING SETS ((id, substr(code, 1, ${digits})), (id))) x GROUP BY v`,
};
