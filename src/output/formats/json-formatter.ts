import { NdjsonFormatter } from './ndjson-formatter.js';

/** One JSON array, streamed: an element a line, the brackets around them. */
export class JsonFormatter extends NdjsonFormatter {
  override page(items: readonly Record<string, unknown>[]): string {
    let out = '';
    for (const item of items) {
      out += (this.rows === 0 ? '[\n' : ',\n') + this.serialize(item);
      this.rows++;
    }
    return out;
  }

  override end(): string {
    return this.rows === 0 ? '[]\n' : '\n]\n';
  }
}
