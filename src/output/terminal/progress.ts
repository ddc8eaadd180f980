import type { IO } from '../../io.js';
import type { Total } from '../../model/total.js';
import { formatCount, formatCounted, formatTotal } from '../../model/numbers.js';
import { holdRetryLines } from './retry-line.js';

export interface ProgressCounts {
  pages: number;
  rows: number;
  /** Matches, once the first page told us. */
  total: Total | null;
}

/** Live progress on stderr; a no-op unless stderr is a terminal. */
export interface Progress {
  update(counts: ProgressCounts): void;
  stop(): void;
}

/** Progress that shows nothing. */
export const silent: Progress = { update() {}, stop() {} };

/**
 * An ora spinner with pages, rows, rate and total. Only where the IO allows
 * animation (a terminal with a real width, ora can hang on 0 columns; stdout
 * not a pipe); ora is loaded only then. `resumedRows`, rows an earlier run
 * wrote, count in the rows shown but not in this run's rate.
 */
export async function createProgress(io: IO, enabled: boolean, noun: string, resumedRows = 0): Promise<Progress> {
  if (!enabled || !io.canAnimate()) return silent;
  const { default: ora } = await import('ora');
  const color = io.colorStderr();
  // isEnabled: the IO decided (ora would ask the stream, which a test's is not);
  // discardStdin off: ora would put stdin in raw mode and swallow Ctrl-C.
  const spinner = ora({
    stream: io.stderr as NodeJS.WriteStream,
    text: `Fetching ${noun}…`,
    color: color ? 'cyan' : false,
    isEnabled: true,
    discardStdin: false,
  }).start();
  const started = performance.now();
  // While a request is retried, the spinner says so instead of its counts.
  let text = spinner.text;
  let retrying: string | undefined;
  holdRetryLines(io, {
    note(line) {
      retrying = line;
      spinner.text = line ?? text;
    },
  });
  return {
    update(counts) {
      text = progressLine(counts, noun, counts.rows - resumedRows, (performance.now() - started) / 1000);
      if (retrying === undefined) spinner.text = text;
    },
    stop() {
      holdRetryLines(io, undefined);
      if (spinner.isSpinning) spinner.stop();
    },
  };
}

/**
 * "2,400 of 8,000 tenders, 24 pages, 1,200/s" (the rate of the rows this run
 * wrote in `seconds`); past the service's ceiling "19,000 tenders (10,000+
 * match)": a capped total is a lower bound the walk overtakes, never an "of".
 */
export function progressLine({ pages, rows, total }: ProgressCounts, noun: string, rowsThisRun: number, seconds: number): string {
  const rate = seconds > 0 ? Math.round(rowsThisRun / seconds) : 0;
  const counted = !total ? `${formatCount(rows)} ${noun}` : total.capped ? `${formatCount(rows)} ${noun} (${formatTotal(total)} match)` : `${formatCount(rows)} of ${formatTotal(total)} ${noun}`;
  return `${counted}, ${formatCounted(pages, 'pages')}, ${formatCount(rate)}/s`;
}
