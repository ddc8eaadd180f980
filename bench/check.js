// Correctness of each contender's output, checked once before any timing: a fast
// contender that writes the wrong thing would make every ratio meaningless.

/** Each NDJSON line parsed and serialised again, so formatting differences (jq's) drop out. */
export function canonicalLines(text, name) {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  return lines.map((line, i) => {
    try {
      return JSON.stringify(JSON.parse(line));
    } catch {
      throw new Error(`${name}: line ${i + 1} is not JSON: ${line.slice(0, 80)}`);
    }
  });
}

/** The same tenders in the same order, compared field by field after parsing. */
export function sameLines(expected, actual, name) {
  if (actual.length !== expected.length) throw new Error(`${name} wrote ${actual.length} lines, the floor ${expected.length}`);
  const i = actual.findIndex((line, k) => line !== expected[k]);
  if (i >= 0) throw new Error(`${name} differs from the floor at line ${i + 1}:\n  ${actual[i].slice(0, 120)}\n  ${expected[i].slice(0, 120)}`);
}

/** RFC 4180 records: quoted fields may hold commas, quotes ("") and CR/LF. */
export function parseCsv(text) {
  const records = [];
  let record = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') (field += '"'), i++;
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') record.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field), records.push(record), (record = []), (field = '');
    } else field += c;
  }
  if (quoted) throw new Error('the CSV ends inside a quoted field');
  if (field !== '' || record.length) record.push(field), records.push(record);
  return records;
}

/** A header and one record per tender, every record as wide as the header, ids in the floor's order. */
export function checkCsv(text, floorLines) {
  const [header, ...rows] = parseCsv(text);
  if (rows.length !== floorLines.length) throw new Error(`the CSV has ${rows.length + 1} records, not ${floorLines.length + 1}`);
  const ragged = rows.findIndex((r) => r.length !== header.length);
  if (ragged >= 0) throw new Error(`CSV record ${ragged + 2} has ${rows[ragged].length} fields, the header ${header.length}`);
  const idColumn = header.indexOf('id');
  if (idColumn < 0) throw new Error(`the CSV header has no id column: ${header.join(',').slice(0, 120)}`);
  const wrong = rows.findIndex((r, k) => r[idColumn] !== String(JSON.parse(floorLines[k]).id));
  if (wrong >= 0) throw new Error(`CSV record ${wrong + 2} is not the floor's tender ${wrong + 1}`);
  return { records: rows.length + 1, columns: header.length };
}
