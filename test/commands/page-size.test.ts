import { describe, expect, it } from 'vitest';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

const limits = (r: Awaited<ReturnType<typeof runInProcess>>) => r.client.requests.map((q) => q.body.limit);

describe('page size', () => {
  it('search --all and orgs --all ask for 100 a page; one page leaves it to the service', async () => {
    expect(limits(await runInProcess(['search', '--all'], pagedTenders(250)))).toEqual([100, 100, 100]);
    expect(limits(await runInProcess(['orgs', 'tenders', 'ORG-1', '--all'], pagedTenders(150)))).toEqual([100, 100]);
    expect(limits(await runInProcess(['search'], pagedTenders(250)))).toEqual([undefined]);
  });

  it('-n wins over the --all default; --max asks for no more than it needs', async () => {
    expect(limits(await runInProcess(['search', '--all', '-n', '40'], pagedTenders(100)))).toEqual([40, 40, 40]);
    expect(limits(await runInProcess(['search', '--all', '--max', '30'], pagedTenders(100)))).toEqual([30]);
  });
});
