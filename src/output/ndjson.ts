import type { FormatOptions, Formatter, FormatterState } from './formatter.js';
import { compilePaths, project } from './paths.js';

/** Serialises each result to one line, projected to --columns when given. */
export function lineSerializer(columns: string[] | undefined): (item: Record<string, unknown>) => string {
  if (!columns) return (item) => JSON.stringify(item);
  const paths = compilePaths(columns);
  return (item) => JSON.stringify(project(item, paths));
}

/** One JSON object a line, as the service sent it unless --columns projects it. */
export class NdjsonFormatter implements Formatter {
  readonly #serialize: (item: Record<string, unknown>) => string;
  #rows: number;

  constructor(opts: FormatOptions, resume?: FormatterState) {
    this.#serialize = lineSerializer(opts.columns);
    this.#rows = resume?.rows ?? 0;
  }

  page(items: readonly Record<string, unknown>[]): string {
    if (items.length === 0) return '';
    this.#rows += items.length;
    let out = '';
    for (const item of items) out += this.#serialize(item) + '\n';
    return out;
  }

  end(): string {
    return '';
  }

  state(): FormatterState {
    return { rows: this.#rows };
  }
}
