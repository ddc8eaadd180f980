import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, expect } from 'vitest';

/**
 * TENDERS_TEST_CPU_LOG=FILE: where a run's CPU goes. A line per test file,
 * "file SECONDS PATH self S children C", with what its worker and the children
 * it waited for (spawned CLIs, shells, tools) spent from the worker's start to
 * the file's end (each file has its own worker, pool forks); with
 * TENDERS_TEST_CPU_LOG_TESTS=1 also a line per test, "test SECONDS PATH > NAME ...".
 * docs/testing.md, "Keeping the suite quick".
 */
const log = process.env.TENDERS_TEST_CPU_LOG;
if (log) {
  const path = () => (expect.getState().testPath ?? '?').replace(`${process.cwd()}/`, '');
  const line = (kind: string, name: string, [self, children]: number[]) =>
    appendFileSync(log, `${kind} ${(self! + children!).toFixed(2)} ${name} self ${self!.toFixed(2)} children ${children!.toFixed(2)}\n`);
  if (process.env.TENDERS_TEST_CPU_LOG_TESTS) {
    let start = cpu();
    beforeEach(() => {
      start = cpu();
    });
    afterEach((ctx) => {
      const now = cpu();
      line('test', `${path()} > ${ctx.task.name}`, [now[0]! - start[0]!, now[1]! - start[1]!]);
    });
  }
  afterAll(() => line('file', path(), cpu()));
}

/** CPU-seconds of this process and of the children it waited for (/proc/self/stat utime stime cutime cstime). */
function cpu(): number[] {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const [utime, stime, cutime, cstime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 15).map((f) => Number(f) / 100);
  return [utime! + stime!, cutime! + cstime!];
}
