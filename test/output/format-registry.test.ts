import { describe, expect, it } from 'vitest';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

describe("a format's own flag with another format", () => {
  it.each([
    [['search', '-f', 'csv', '--remind', '1d'], '--remind is for the ics format, not csv: add -f ics'],
    [['export', '-f', 'ndjson', '--ocid-prefix', 'ocds-abc123'], '--ocid-prefix is for the ocds format, not ndjson: add -f ocds'],
  ])('%j is a usage error naming the format that takes it, before any request', async (args, message) => {
    const r = await runInProcess(args, pagedTenders(3));
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: `tenders: ${message}\n` });
    expect(r.client.requests).toEqual([]);
  });

  it('is taken with its own format', async () => {
    const r = await runInProcess(['search', '-f', 'ics', '--remind', '1d'], pagedTenders(3, () => ({ deadline: '2027-01-01T12:00:00Z' })));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('TRIGGER:-P1D');
  });
});
