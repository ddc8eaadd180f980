import { describe, expect, it } from 'vitest';
import { EVERY_TENDER, type SavedSearchInfo } from '../../src/model/saved-search.js';
import { headerLine, parseHeader, type StateHeader } from '../../src/run/watch/state.js';
import type { SyncDefinition } from '../../src/store/store.js';
import type { WatchRecord } from '../../src/store/watches.js';

const search: StateHeader = { name: 'deu-open', query: { org: null, body: { buyerCountries: ['DEU'], statuses: ['open'] } }, created: '2026-11-01T00:00:00.000Z', service: 'https://tenders.example.org' };

describe('one saved search: a sync, a watch state header, a watch row', () => {
  it('a watch state header is the saved search, with `service` (never `baseUrl`), and reads back as it was', () => {
    const line = headerLine(search);
    expect(JSON.parse(line)).toEqual({ tendersWatch: 1, ...search });
    expect(line).not.toContain('baseUrl');
    expect(parseHeader('w.watch', Buffer.from(line.trimEnd()))).toEqual(search);
  });

  it('reads a header written before the service was called so (`baseUrl`), and one from before it was kept (none)', () => {
    const { service, ...rest } = search;
    const old = JSON.stringify({ tendersWatch: 1, ...rest, baseUrl: service });
    expect(parseHeader('w.watch', Buffer.from(old))).toEqual(search);
    expect(parseHeader('w.watch', Buffer.from(JSON.stringify({ tendersWatch: 1, ...rest })))).toEqual(rest);
    expect(() => parseHeader('w.watch', Buffer.from(JSON.stringify({ tendersWatch: 1, ...rest, baseUrl: 7 })))).toThrow('has a damaged first line');
  });

  it('a sync and a watch row are that saved search too', () => {
    const sync: SyncDefinition = { name: search.name, query: search.query, service: search.service! };
    const row: WatchRecord = { ...search, lastRun: '2026-11-28T07:00:00.000Z', tenders: 3, format: 1, newestPublicationDate: null, fields: [] };
    const listed: SavedSearchInfo = row;
    expect({ name: listed.name, query: listed.query, service: listed.service }).toEqual(sync);
    expect(EVERY_TENDER).toEqual({ org: null, body: {} });
  });
});
