import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { storeLocation } from '../../src/store/location.js';

describe('storeLocation', () => {
  it('takes --db, then TENDERS_DB, then XDG_DATA_HOME, then HOME', () => {
    const env = { TENDERS_DB: '/env.db', XDG_DATA_HOME: '/xdg', HOME: '/home/u' };
    expect(storeLocation('/flag.db', env)).toBe('/flag.db');
    expect(storeLocation(undefined, env)).toBe('/env.db');
    expect(storeLocation(undefined, { ...env, TENDERS_DB: '' })).toBe('/xdg/tenders/tenders.db');
    expect(storeLocation(undefined, { HOME: '/home/u' })).toBe('/home/u/.local/share/tenders/tenders.db');
  });

  it('ignores a relative XDG_DATA_HOME, as the XDG spec says', () => {
    expect(storeLocation(undefined, { XDG_DATA_HOME: 'rel', HOME: '/h' })).toBe('/h/.local/share/tenders/tenders.db');
  });

  it('keeps a postgres URL as it is', () => {
    expect(storeLocation('postgres://u@db/tenders', {})).toBe('postgres://u@db/tenders');
  });

  it('is a usage error with nowhere to put the copy', () => {
    expect(() => storeLocation(undefined, {})).toThrow(UsageError);
  });
});
