/**
 * `tenders config set` and `unset` edit the config file's text, line by line,
 * rather than write out what a TOML library parsed: the user's comments,
 * blank lines, order and quoting stay as they were. The caller parses the
 * result and checks it says what was meant (a file written in a way this
 * does not follow, such as dotted keys, is refused, not mangled).
 */

/** The table a setting goes in: the top level (undefined) or [profile.NAME]. */
export type TableName = string | undefined;

interface Line {
  text: string;
  /** The table the line belongs to: undefined for the top level, `profile.work` for [profile.work]. */
  table: TableName;
  header: boolean;
  /** The key a `key = value` line sets. */
  key?: string;
}

const HEADER = /^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(?:#.*)?$/;
const KEY_LINE = /^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*=/;

/** KEY = VALUE set in `table`: its line replaced (keeping its comment), else added after the table's last setting. */
export function setInText(text: string, table: TableName, key: string, value: string): string {
  const { lines, eol } = split(text);
  const at = lines.findIndex((line) => line.table === table && line.key === key);
  if (at >= 0) {
    lines[at]!.text = replaceValue(lines[at]!.text, value);
    return join(lines, eol);
  }
  const line: Line = { text: `${key} = ${value}`, table, header: false, key };
  const inTable = lines.map((l, i) => (l.table === table && l.key !== undefined ? i : -1)).filter((i) => i >= 0);
  if (inTable.length > 0) lines.splice(inTable.at(-1)! + 1, 0, line);
  else if (table !== undefined) {
    const header = lines.findIndex((l) => l.header && l.table === table);
    if (header >= 0) lines.splice(header + 1, 0, line);
    else {
      while (lines.length > 0 && lines.at(-1)!.text.trim() === '') lines.pop();
      if (lines.length > 0) lines.push({ text: '', table: undefined, header: false });
      lines.push({ text: `[${table}]`, table, header: true }, line);
    }
  } else {
    // The top level ends at the first table; the comments and blank lines just above it are that table's.
    let end = lines.findIndex((l) => l.header);
    if (end < 0) end = lines.length;
    else {
      while (end > 0 && /^\s*(#.*)?$/.test(lines[end - 1]!.text)) end--;
      lines.splice(end, 0, { text: '', table: undefined, header: false });
    }
    lines.splice(end, 0, line);
  }
  return join(lines, eol);
}

/** `text` without the line that sets KEY in `table`; undefined when there is none. */
export function unsetInText(text: string, table: TableName, key: string): string | undefined {
  const { lines, eol } = split(text);
  const at = lines.findIndex((line) => line.table === table && line.key === key);
  if (at < 0) return undefined;
  lines.splice(at, 1);
  return join(lines, eol);
}

function split(text: string): { lines: Line[]; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const raw = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
  let table: TableName;
  const lines = raw.map((line): Line => {
    const header = HEADER.exec(line);
    if (header) {
      table = tableName(header[1]!);
      return { text: line, table, header: true };
    }
    const key = KEY_LINE.exec(line)?.[1];
    return { text: line, table, header: false, key: key === undefined ? undefined : unquote(key) };
  });
  return { lines, eol };
}

function join(lines: readonly Line[], eol: string): string {
  return lines.length === 0 ? '' : `${lines.map((l) => l.text).join(eol)}${eol}`;
}

/** `profile . "work"` → `profile.work`. */
function tableName(inside: string): string {
  return (inside.match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^.\s]+/g) ?? []).map(unquote).join('.');
}

function unquote(key: string): string {
  if (key.startsWith('"')) return JSON.parse(key) as string;
  return key.startsWith("'") ? key.slice(1, -1) : key;
}

/** A `key = value  # comment` line with another value, its key, spacing and comment as they were. */
function replaceValue(line: string, value: string): string {
  const equals = KEY_LINE.exec(line)![0].length;
  const after = line.slice(equals);
  const lead = /^\s*/.exec(after)![0];
  const rest = after.slice(lead.length + valueLength(after.slice(lead.length)));
  return `${line.slice(0, equals)}${lead || ' '}${value}${rest}`;
}

/** How long the value at the start of `text` is: a quoted string to its closing quote, else up to a space or comment. */
function valueLength(text: string): number {
  const quoted = /^("(?:[^"\\]|\\.)*"|'[^']*')/.exec(text);
  if (quoted) return quoted[0].length;
  return /^[^\s#]*/.exec(text)![0].length;
}
