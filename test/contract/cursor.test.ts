import { describe, expect, it } from 'vitest';
import { CursorCodec, queryFingerprint } from '../../src/contract/cursor.js';

describe('cursors', () => {
  const codec = new CursorCodec('secret');
  const fp = queryFingerprint({ op: 'tenders', sortBy: 'deadline', sortOrder: 'asc', buyerCountries: ['DEU', 'FRA'] });

  it('round-trips a keyset position for the same query', () => {
    const cursor = codec.encode({ key: '2026-01-01T12:00:00Z', id: 'T-1' }, fp);
    expect(cursor).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(codec.decode(cursor, fp)).toEqual({ key: '2026-01-01T12:00:00Z', id: 'T-1' });
  });

  it('rejects a cursor of another query, a tampered one and another server\'s', () => {
    const cursor = codec.encode({ key: 5, id: 'T-9' }, fp);
    const other = queryFingerprint({ op: 'tenders', sortBy: 'deadline', sortOrder: 'desc', buyerCountries: ['DEU', 'FRA'] });
    expect(codec.decode(cursor, other)).toBeUndefined();
    const [payload, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ k: 0, i: 'T-1', f: fp })).toString('base64url');
    expect(codec.decode(`${forged}.${mac}`, fp)).toBeUndefined();
    expect(codec.decode(`${payload}.${mac!.slice(1)}x`, fp)).toBeUndefined();
    expect(codec.decode('garbage', fp)).toBeUndefined();
    expect(new CursorCodec('other').decode(cursor, fp)).toBeUndefined();
  });

  it('fingerprints ignore key order and the order of filter values, not the values', () => {
    const a = queryFingerprint({ sortBy: 'deadline', buyerCountries: ['FRA', 'DEU'], statuses: ['open'] });
    const b = queryFingerprint({ statuses: ['open'], buyerCountries: ['DEU', 'FRA'], sortBy: 'deadline', query: undefined });
    expect(a).toBe(b);
    expect(queryFingerprint({ sortBy: 'deadline', buyerCountries: ['DEU'] })).not.toBe(queryFingerprint({ sortBy: 'deadline', buyerCountries: ['FRA'] }));
  });
});
