import { describe, expect, it } from 'vitest';
import { Routes } from '../../src/sandbox/routes.js';
import { Store } from '../../src/sandbox/store.js';
import type { Responder } from '../support/fake-client.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { runInProcess } from '../support/run.js';

/** The sandbox's service in-process. */
function service(size: number, seed: number): Responder {
  const routes = new Routes(new Store(size, seed), 'in-process');
  return ({ path, body }) => {
    const answer = routes.handle(path, body);
    return { status: answer.status, json: JSON.parse(answer.body) as unknown };
  };
}

describe.skipIf(POSTGRES_MISSING)('a PostgreSQL copy reached through the command\'s environment (the IO seam)', () => {
  it('PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE and TENDERS_DB_SCHEMA of the injected env reach sync and every --local reader', async () => {
    const server = await postgres();
    const url = await server.createDatabase('ioenv');
    const env = {
      TENDERS_DB: 'postgres://',
      TENDERS_DB_SCHEMA: 'team',
      PGHOST: '127.0.0.1',
      PGPORT: String(server.port),
      PGUSER: server.user,
      PGPASSWORD: server.password,
      PGDATABASE: new URL(url).pathname.slice(1),
    };
    const respond = service(300, 4);
    const run = (argv: string[]) => runInProcess(argv, respond, { env });
    expect(await run(['sync', 'team-copy'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const online = await run(['export', '-f', 'ndjson']);
    const ids = (text: string) => text.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id);
    // The readers find the copy in the schema the environment names.
    const local = await run(['export', '--local', '-f', 'ndjson']);
    expect(local.code).toBe(0);
    expect(ids(local.stdout)).toEqual(ids(online.stdout));
    expect(await run(['count', '--local'])).toMatchObject({ code: 0, stdout: `${ids(online.stdout).length}\n` });
    expect(await run(['changes', '-f', 'ndjson'])).toMatchObject({ code: 0, stdout: '' });
    const list = await run(['sync', '--list', '-f', 'ndjson']);
    expect(list.stdout).toContain('"name":"team-copy"');
    for (const r of [local, list]) expect(r.stderr).not.toContain(server.password);
    // Without the password in the injected env the login fails, whatever the process's own environment holds.
    const { PGPASSWORD: _password, ...noPassword } = env;
    const refused = await runInProcess(['count', '--local'], respond, { env: noPassword });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^tenders: postgres:\/\/.*the server asks for a password, and none was given/);
  });
});
