import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { ndjson, runCli } from '../support/cli.js';

const PATH = '/api/v1/tenders/search';
let sb: Sandbox;

beforeAll(async () => {
  sb = await startSandbox({ size: 3000, seed: 11 });
});
afterAll(() => sb.close());

describe('paging', () => {
  it('search --all asks for pages of 100', async () => {
    const before = sb.requests.length;
    const r = await runCli(['search', '--all', '-s', 'open'], sb.url);
    expect(r.code).toBe(0);
    const truth = sb.truth(PATH, { statuses: ['open'] });
    expect(ndjson(r.stdout)).toEqual(truth);
    const sent = sb.requests.slice(before).map((q) => (q.body as { limit?: number }).limit);
    expect(sent).toEqual(Array(Math.ceil(truth.length / 100)).fill(100));
  });
});
