import type { IO } from '../io.js';
import type { Total } from '../model/total.js';
import { formatCount, formatTotal } from './numbers.js';

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
 * An ora spinner with pages, rows, rate and total. Only on a terminal with a
 * real width (ora can hang on 0 columns); ora is loaded only then.
 */
export async function createProgress(io: IO, enabled: boolean, noun: string): Promise<Progress> {
  if (!enabled || !io.canAnimate()) return silent;
  const { default: ora } = await import('ora');
  const color = io.colorStderr();
  // discardStdin off: ora would put stdin in raw mode and swallow Ctrl-C.
  const spinner = ora({ stream: io.stderr as NodeJS.WriteStream, text: `Fetching ${noun}…`, color: color ? 'cyan' : false, discardStdin: false }).start();
  const started = performance.now();
  return {
    update({ pages, rows, total }) {
      const seconds = (performance.now() - started) / 1000;
      const rate = seconds > 0 ? Math.round(rows / seconds) : 0;
      const of = total ? ` of ${formatTotal(total)}` : '';
      spinner.text = `${formatCount(rows)}${of} ${noun}, ${pages} pages, ${formatCount(rate)}/s`;
    },
    stop() {
      if (spinner.isSpinning) spinner.stop();
    },
  };
}
