import { describe, expect, it } from 'vitest';
import type { Client } from '../../src/api/client.js';
import { limitInFlight } from '../../src/api/in-flight.js';

/** A client whose answers wait until the test releases them, in order. */
function heldClient() {
  const held: { body: string; release: () => void }[] = [];
  let closed: boolean | undefined;
  const client: Client = {
    stats: { requests: 7, retries: { '503': 1 } },
    post: (_path, body) => new Promise((resolve) => held.push({ body, release: () => resolve({ status: 200, json: body }) })),
    close: async (force) => {
      closed = force;
    },
  };
  return { client, held, closed: () => closed };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('limitInFlight', () => {
  it('lets at most N requests out at once, the waiting ones first come first served', async () => {
    const { client, held } = heldClient();
    const limited = limitInFlight(client, 2);
    const answers = ['a', 'b', 'c', 'd'].map((body) => limited.post('/p', body));
    await tick();
    expect(held.map((h) => h.body)).toEqual(['a', 'b']);
    held[1]!.release();
    await tick();
    expect(held.map((h) => h.body)).toEqual(['a', 'b', 'c']);
    held[0]!.release();
    await tick();
    held[2]!.release();
    held[3]!.release();
    expect(await Promise.all(answers)).toEqual(['a', 'b', 'c', 'd'].map((json) => ({ status: 200, json })));
  });

  it('drops a waiting request whose signal aborts, and one already aborted', async () => {
    const { client, held } = heldClient();
    const limited = limitInFlight(client, 1);
    const first = limited.post('/p', 'a');
    const stop = new AbortController();
    const waiting = limited.post('/p', 'b', stop.signal);
    const later = limited.post('/p', 'c');
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    await expect(limited.post('/p', 'x', stop.signal)).rejects.toThrow('stopped');
    held[0]!.release();
    await first;
    await tick();
    expect(held.map((h) => h.body)).toEqual(['a', 'c']);
    held[1]!.release();
    await later;
  });

  it('passes a failure through and frees its slot; shows the client stats and closes it', async () => {
    const failing: Client = { post: async () => Promise.reject(new Error('down')), close: async () => undefined };
    const limited = limitInFlight(failing, 1);
    await expect(limited.post('/p', 'a')).rejects.toThrow('down');
    await expect(limited.post('/p', 'b')).rejects.toThrow('down');
    const { client, closed } = heldClient();
    const wrapped = limitInFlight(client, 3);
    expect(wrapped.stats).toEqual({ requests: 7, retries: { '503': 1 } });
    await wrapped.close(true);
    expect(closed()).toBe(true);
  });
});
