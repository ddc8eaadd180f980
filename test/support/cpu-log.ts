import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, expect } from 'vitest';

/**
 * TENDERS_TEST_CPU_LOG=FILE: where a run's CPU goes. A line per test file,
 * "file SECONDS PATH self S children C": what its worker (the file's tests, the
 * in-process sandbox) and the children it waited for (spawned CLIs, shells,
 * tools) spent from the file's setup to its end; with TENDERS_TEST_CPU_LOG_TESTS=1
 * also a line per test, "test SECONDS PATH > NAME self S children C".
 * `/usr/bin/time` of the run gives the total, vitest's own process included.
 */
const log = process.env.TENDERS_TEST_CPU_LOG;
if (log) {
  const path = () => (expect.getState().testPath ?? '?').replace(`${process.cwd()}/`, '');
  const line = (kind: string, name: string, since: number[]) => {
    const [self, children] = cpu().map((seconds, i) => seconds - since[i]!) as [number, number];
    appendFileSync(log, `${kind} ${(self + children).toFixed(2)} ${name} self ${self.toFixed(2)} children ${children.toFixed(2)}\n`);
  };
  const fileStart = cpu(); // this module is evaluated again for each file, isolated or not
  if (process.env.TENDERS_TEST_CPU_LOG_TESTS) {
    let testStart = fileStart;
    beforeEach(() => {
      testStart = cpu();
    });
    afterEach((ctx) => line('test', `${path()} > ${ctx.task.name}`, testStart));
  }
  afterAll(() => line('file', path(), fileStart));
}

/** CPU-seconds of this process and of the children it waited for (/proc/self/stat utime stime cutime cstime). */
function cpu(): number[] {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const [utime, stime, cutime, cstime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 15).map((f) => Number(f) / 100);
  return [utime! + stime!, cutime! + cstime!];
}
