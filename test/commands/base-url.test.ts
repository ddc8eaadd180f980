import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/api/errors.js';
import { execute } from '../../src/cli.js';
import type { ConnectionPlan } from '../../src/run/plan.js';
import { FakeClient, pagedTenders } from '../support/fake-client.js';
import { memoryIO } from '../support/io.js';
import { runInProcess } from '../support/run.js';

/** Runs with a client factory that records the connection it was asked for. */
async function connect(argv: string[]) {
  const t = memoryIO();
  const connections: ConnectionPlan[] = [];
  const code = await execute(argv, t.io, {
    createClient: async (connection) => {
      connections.push(connection);
      return new FakeClient(pagedTenders(1));
    },
  });
  return { code, stderr: t.stderr.text, connections };
}

describe('base-URL mistakes get advice', () => {
  it('a base URL ending in /api/v1 is used without it, said with --verbose', async () => {
    const quiet = await connect(['search', '--base-url', 'http://h:8787/api/v1/']);
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
    expect(quiet.connections[0]!.baseUrl.href).toBe('http://h:8787/');
    const verbose = await connect(['search', '--base-url', 'http://h:8787/api/v1', '-v']);
    expect(verbose.stderr.split('\n')[0]).toBe('* the base URL ends in /api/v1, which the CLI adds to every path itself: using http://h:8787');
  });

  it('a base URL without a scheme is refused, suggesting one, before any client is made', async () => {
    const r = await connect(['count', '--base-url', 'localhost:8787']);
    expect(r).toEqual({ code: 2, stderr: "tenders: the base URL 'localhost:8787' has no scheme: did you mean http://localhost:8787?\n", connections: [] });
  });

  it("a 404 on an organisation's tenders suggests orgs search (not when the path is the user's own)", async () => {
    const r = await runInProcess(['orgs', 'tenders', 'ORG-X'], ({ path }) => {
      throw new ServiceError(404, path, 'organisation not found: ORG-X', '');
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "tenders: the service answered 404 to POST /api/v1/organisations/ORG-X/tenders/search: organisation not found: ORG-X: is the organisation id right? find ids with 'tenders orgs search --query NAME'\n",
    );
    const moved = await runInProcess(['orgs', 'tenders', 'ORG-X', '--path', '/b/{id}/t'], ({ path }) => {
      throw new ServiceError(404, path, `not found: ${path}`, '');
    });
    expect(moved.stderr).toBe('tenders: the service answered 404 to POST /b/ORG-X/t: not found: /b/ORG-X/t: is the base URL right? (it is http://service.test)\n');
  });
});
