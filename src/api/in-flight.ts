import type { Client } from './client.js';

/**
 * The run's client with at most `limit` requests in flight at once (--parallel),
 * first come first served. Retries happen inside the client, so a slot is held
 * until a page is answered or given up; the shared rate stays the client's.
 */
export function limitInFlight(client: Client, limit: number): Client {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  const acquire = (signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (active < limit) {
      active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        active++;
        resolve();
      };
      const onAbort = () => {
        waiting.splice(waiting.indexOf(grant), 1);
        reject(signal!.reason as Error);
      };
      waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
  return {
    get stats() {
      return client.stats;
    },
    async post(path, body, signal) {
      await acquire(signal);
      try {
        return await client.post(path, body, signal);
      } finally {
        release();
      }
    },
    close: (force) => client.close(force),
  };
}
