import { describe, expect, it } from 'vitest';
import type { FormatOptions } from '../../src/output/formatter.js';
import { TsvFormatter } from '../../src/output/formats/tsv-formatter.js';
import { HOSTILE_TITLE, hostileTenders } from '../support/hostile-tenders.js';

const base: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, color: false };

/** Undoes the escapes as a script would (`\t \n \r \\`). */
const unescape = (cell: string) => cell.replace(/\\([tnr\\])/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c]!);

describe('TSV', () => {
  it('writes one line a row, each splitting on tabs into the header fields, with values restorable from the escapes', () => {
    const tsv = new TsvFormatter(base);
    const text = String(tsv.page(hostileTenders())) + String(tsv.end());
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(4);
    const header = lines[0]!.split('\t');
    expect(header.slice(0, 5)).toEqual(['id', 'title', 'status', 'publicationDate', 'deadline']);
    for (const line of lines) expect(line.split('\t')).toHaveLength(header.length);
    const row = (i: number) => Object.fromEntries(lines[i]!.split('\t').map((cell, c) => [header[c], unescape(cell)]));
    expect(row(1).title).toBe(HOSTILE_TITLE);
    expect(lines[1]).toContain('2\\\\3\\r\\nline two\\ttab');
    expect(row(2)).toMatchObject({ deadline: '', 'estimatedValue.amountEur': '' });
    expect(row(3)['estimatedValue.amountEur']).toBe('12345678901234567890.5');
  });

  it('honours --columns, snake_case headers, --no-header and --excel-safe', () => {
    const tsv = new TsvFormatter({ ...base, columns: ['id', 'buyer.name'], headerStyle: 'snake', excelSafe: true });
    expect(tsv.page([{ id: '=1+1', buyer: { name: 'a\tb' } }])).toBe("id\tbuyer_name\n'=1+1\ta\\tb\n");
    const bare = new TsvFormatter({ ...base, columns: ['id'], header: false });
    expect(bare.page([{ id: 'x' }])).toBe('x\n');
  });

  it('continues a resumed export with the saved columns and no second header', () => {
    const [a, b, c] = hostileTenders();
    const first = new TsvFormatter(base);
    const head = String(first.page([a!, b!]));
    const tail = String(new TsvFormatter(base, first.state()).page([c!]));
    const whole = new TsvFormatter(base);
    expect(head + tail).toBe(String(whole.page([a!, b!])) + String(whole.page([c!])));
  });
});
