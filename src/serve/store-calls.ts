import type { Store } from '../store/store.js';

/** What one call of the store runs on: the store to ask, a check after each answer or batch, and its end. */
export interface Lease {
  store: Store;
  /** Throws when the call must stop (its time ran out): after each answer and each batch. */
  check(): void;
  /** The error the caller sees for one the store threw. */
  fail(err: unknown): Error;
  /** The call ended, however (a generator closed early included). */
  done(): void;
}

/** The store's methods that hand on batches (async generators); the rest answer once. */
const STREAMS = new Set<PropertyKey>(['select', 'changes']);

/**
 * A Store whose every call takes a Lease first (`lease()`, which may refuse
 * with its own error) and runs on the lease's store, batches included: one
 * place to put what must hold around each read (a time limit, a slot, the
 * copy's current file) without touching the engines. close() is not leased;
 * a snapshot keeps its lease until it is closed, and its calls are checked.
 */
export function leasedStore(base: Store, lease: () => Promise<Lease>): Store {
  return new Proxy(base, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function' || prop === 'close') return value;
      if (prop === 'snapshot') return () => held(lease);
      if (STREAMS.has(prop)) return (...args: unknown[]) => streamed(lease, prop, args);
      return async (...args: unknown[]) => {
        const l = await lease();
        try {
          const answer = await (Reflect.get(l.store, prop) as (...a: unknown[]) => Promise<unknown>).apply(l.store, args);
          l.check();
          return answer;
        } catch (err) {
          throw l.fail(err);
        } finally {
          l.done();
        }
      };
    },
  });
}

async function* streamed(lease: () => Promise<Lease>, prop: PropertyKey, args: unknown[]): AsyncGenerator<unknown> {
  const l = await lease();
  try {
    const batches = (Reflect.get(l.store, prop) as (...a: unknown[]) => AsyncGenerator<unknown>).apply(l.store, args);
    for await (const batch of batches) {
      l.check();
      yield batch;
    }
  } catch (err) {
    throw l.fail(err);
  } finally {
    l.done();
  }
}

/** A snapshot of the lease's store, which holds the lease until it is closed (the copy it reads stays open meanwhile). */
async function held(lease: () => Promise<Lease>): Promise<Store> {
  const l = await lease();
  let snapshot: Store;
  try {
    snapshot = await l.store.snapshot();
  } catch (err) {
    l.done();
    throw l.fail(err);
  }
  const calls = leasedStore(snapshot, async () => ({ ...l, store: snapshot, done: () => undefined }));
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= snapshot.close().finally(() => l.done()));
  return new Proxy(calls, { get: (target, prop) => (prop === 'close' ? close : Reflect.get(target, prop, target)) });
}
