import type { FormatOptions, Formatter, FormatterState } from '../formatter.js';
import { stringifyJson } from '../../model/exact-json.js';
import { compilePaths, project } from '../../model/paths.js';

/** One JSON object a line, as the service sent it (numbers digit for digit) unless --columns projects it. */
export class NdjsonFormatter implements Formatter {
  protected readonly serialize: (item: Record<string, unknown>) => string;
  protected rows: number;

  constructor(opts: FormatOptions, resume?: FormatterState) {
    const paths = opts.columns && compilePaths(opts.columns);
    this.serialize = paths ? (item) => stringifyJson(project(item, paths)) : stringifyJson;
    this.rows = resume?.rows ?? 0;
  }

  page(items: readonly Record<string, unknown>[]): string {
    let out = '';
    for (const item of items) out += this.serialize(item) + '\n';
    this.rows += items.length;
    return out;
  }

  end(): string {
    return '';
  }

  state(): FormatterState {
    return { rows: this.rows };
  }
}
