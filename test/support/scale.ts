import { availableParallelism, loadavg } from 'node:os';

/**
 * How much slower than an idle machine this one is allowed to be: the
 * TENDERS_TEST_TIME_SCALE variable when set (CI can raise it), else the
 * one-minute load per core, never below 1. Every time limit a test sets
 * (vitest's test and hook timeouts, a spawned tool's) goes through `scaled`,
 * so a loaded machine makes tests slower, never red.
 */
export const TIME_SCALE = timeScale(process.env.TENDERS_TEST_TIME_SCALE);

function timeScale(set: string | undefined): number {
  const chosen = Number(set);
  if (set !== undefined && set !== '' && Number.isFinite(chosen) && chosen > 0) return chosen;
  return Math.max(1, loadavg()[0]! / availableParallelism());
}

/** `ms` on an idle machine, stretched by TIME_SCALE. */
export const scaled = (ms: number): number => Math.ceil(ms * TIME_SCALE);
