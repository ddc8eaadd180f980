import { describe, expect, it } from 'vitest';
import { DEFAULT_CPV_PATHS } from '../../../src/model/cpv.js';
import { parseJson } from '../../../src/model/json-parse.js';
import { countdown } from '../../../src/output/terminal/countdown.js';
import { renderTenderView, type TenderHistory } from '../../../src/output/terminal/tender-view.js';

const NOW = new Date('2026-03-10T12:00:00Z');
const NAMES: Record<string, string> = { '45233140': 'Roadworks', '45000000': 'Construction work' };
const opts = (width: number | undefined) => ({ width, now: NOW, cpvPaths: DEFAULT_CPV_PATHS, cpvName: (code: string) => NAMES[code] });

const HISTORY: TenderHistory = {
  firstSeen: '2026-03-01T07:00:00.000Z',
  goneAt: null,
  syncs: ['deu-open', 'roads'],
  changes: [
    { at: '2026-03-05T07:00:00.000Z', sync: 'deu-open', kind: 'changed', field: 'deadline', old: '2026-03-12T12:00:00Z', new: '2026-03-15T12:00:00Z' },
    { at: '2026-03-06T07:00:00.000Z', sync: 'deu-open', kind: 'changed', field: 'lots', new: [1, 2] },
  ],
};

describe('countdown', () => {
  it('says how far a deadline is in its largest sensible unit, ahead or behind', () => {
    const at = (iso: string) => countdown(Date.parse(iso), NOW.getTime());
    expect(at('2026-03-15T12:00:00Z')).toBe('in 5 days');
    expect(at('2026-03-11T12:00:00Z')).toBe('in 24 hours');
    expect(at('2026-03-10T13:00:00Z')).toBe('in 1 hour');
    expect(at('2026-03-10T12:45:00Z')).toBe('in 45 minutes');
    expect(at('2026-03-10T12:00:00Z')).toBe('in 0 minutes');
    expect(at('2026-03-07T12:00:00Z')).toBe('closed 3 days ago');
    expect(at('2026-03-10T11:59:00Z')).toBe('closed 1 minute ago');
  });
});

describe('renderTenderView', () => {
  it('lists every field aligned: objects indented, arrays numbered, CPV names, the deadline as a date with its countdown, then the history', () => {
    const tender = parseJson(
      '{"id":"T-1","title":"Roads\\u001b[31m of\\nKöln","deadline":"2026-03-15T12:00:00Z","buyer":{"id":"B-1","name":"Stadt Köln"},' +
        '"estimatedValue":{"amount":12345678901234567890},"cpv":"45233140","cpvCodes":["45233140-2","45000000","77777777"],"lots":[{"n":1},{"n":2}],"tags":[],"note":null}',
    ) as Record<string, unknown>;
    expect(renderTenderView(tender, HISTORY, opts(undefined))).toBe(
      [
        'id              T-1',
        'title           Roads of Köln',
        'deadline        2026-03-15 12:00 UTC (in 5 days)',
        'buyer',
        '  id            B-1',
        '  name          Stadt Köln',
        'estimatedValue',
        '  amount        12345678901234567890',
        'cpv             45233140  Roadworks',
        'cpvCodes',
        '  1             45233140-2  Roadworks',
        '  2             45000000  Construction work',
        '  3             77777777',
        'lots',
        '  1',
        '    n           1',
        '  2',
        '    n           2',
        'tags            (none)',
        'note            null',
        '',
        'history in the local copy',
        '  first seen                2026-03-01T07:00:00.000Z',
        '  syncs                     deu-open, roads',
        '  2026-03-05T07:00:00.000Z  deadline: 2026-03-12T12:00:00Z → 2026-03-15T12:00:00Z  [deu-open]',
        '  2026-03-06T07:00:00.000Z  lots: (none) → [1,2]  [deu-open]',
        '  gone                      no, the service lists it',
        '',
      ].join('\n'),
    );
  });

  it('names the codes at the paths it is given, in every item of an array on the way, and no others', () => {
    const tender = { id: 'T-3', cpv: '45000000', lots: [{ cpv: '45233140', title: '45000000' }, { cpv: ['45000000-7'] }], main: { code: '45233140' } };
    const text = renderTenderView(tender, { ...HISTORY, changes: [] }, { ...opts(undefined), cpvPaths: ['lots.cpv', 'main.code'] });
    expect(text.split('\n').slice(0, 11)).toEqual([
      'id         T-3',
      'cpv        45000000',
      'lots',
      '  1',
      '    cpv    45233140  Roadworks',
      '    title  45000000',
      '  2',
      '    cpv',
      '      1    45000000-7  Construction work',
      'main',
      '  code     45233140  Roadworks',
    ]);
  });

  it('wraps long text at the width under its own column, and says when a gone tender went', () => {
    const tender = { id: 'T-2', description: 'one two three four five six seven eight nine ten eleven twelve', deadline: '2026-03-01' };
    const text = renderTenderView(tender, { ...HISTORY, changes: [], goneAt: '2026-03-09T07:00:00.000Z' }, opts(40));
    expect(text.split('\n').slice(0, 6)).toEqual([
      'id           T-2',
      'description  one two three four five six',
      '             seven eight nine ten eleven',
      '             twelve',
      'deadline     2026-03-01 (closed 9 days',
      '             ago)',
    ]);
    expect(text).toContain('\n  gone        2026-03-09T07:00:00.000Z\n');
  });
});
