import { Routes } from '../../src/sandbox/routes.js';
import { Store } from '../../src/sandbox/store.js';
import type { Responder } from './fake-client.js';

/** The sandbox's service in-process: a FakeClient responder answering as the sandbox would over HTTP. */
export function sandboxResponder(size: number, seed = 1): Responder {
  const routes = new Routes(new Store(size, seed), 'in-process');
  return ({ path, body }) => {
    const answer = routes.handle(path, body);
    return { status: answer.status, json: JSON.parse(answer.body) as unknown };
  };
}
