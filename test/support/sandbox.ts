import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';

/**
 * The sandbox of a test file, the one fixture of every e2e test:
 *
 *   const sb = useSandbox({ size: 3000, seed: 7 });
 *   it('...', async () => {
 *     const r = await runCli(['search'], sb.url);
 *     expect(sb.requests.length).toBe(1);
 *   });
 *
 * Started before the file's first test, closed after its last; before each
 * test its faults are reset to `faults` (none by default), so no test
 * inherits another's. The object is the live Sandbox once started.
 * Each test's own directory and CLI environment: test/support/test-context.ts.
 */
export function useSandbox(options: SandboxOptions = {}): Sandbox {
  let live: Sandbox | undefined;
  beforeAll(async () => {
    live = await startSandbox(options);
  });
  afterAll(() => live?.close());
  beforeEach(() => live!.setFaults(options.faults ?? {}));
  return new Proxy({} as Sandbox, {
    get(_, key) {
      if (live === undefined) throw new Error(`the sandbox is used before it started (sandbox.${String(key)} outside a test or hook)`);
      const value = live[key as keyof Sandbox];
      return typeof value === 'function' ? value.bind(live) : value;
    },
  });
}
