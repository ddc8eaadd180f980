import type { FormatOptions, Formatter, FormatterState } from './formatter.js';
import { lineSerializer } from './ndjson.js';

/** One JSON array, streamed: an element a line, the brackets around them. */
export class JsonFormatter implements Formatter {
  readonly #serialize: (item: Record<string, unknown>) => string;
  #rows: number;

  constructor(opts: FormatOptions, resume?: FormatterState) {
    this.#serialize = lineSerializer(opts.columns);
    this.#rows = resume?.rows ?? 0;
  }

  page(items: readonly Record<string, unknown>[]): string {
    let out = '';
    for (const item of items) {
      out += (this.#rows === 0 ? '[\n' : ',\n') + this.#serialize(item);
      this.#rows++;
    }
    return out;
  }

  end(): string {
    return this.#rows === 0 ? '[]\n' : '\n]\n';
  }

  state(): FormatterState {
    return { rows: this.#rows };
  }
}
