import type { JsonObject } from '../model/exact-json.js';
import { closeMatches } from '../model/close-match.js';
import { compilePaths, discoverPaths, valueAt } from '../model/paths.js';

/**
 * --columns paths that no result has (a typo like `buyer.nme` prints empty
 * cells otherwise), each with the fields it may have meant. The first page
 * names the suspects and the guesses; a later result that has one clears it,
 * so a field that only later pages bring (as a CSV's new-field warning advises
 * adding) is no false alarm, every night, in a cron job's mail. `aliases` maps
 * words a person might type (the table's headers, such as `published`) to the
 * path they stand for.
 */
export class UnknownColumns {
  readonly #suspects = new Map<string, { path: string[]; guesses: string[] }>();
  #first = true;

  constructor(
    private readonly columns: readonly string[],
    private readonly aliases: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** Looks at the next page of results. */
  scan(items: readonly JsonObject[]): void {
    if (items.length === 0) return;
    if (this.#first) {
      this.#first = false;
      this.#suspect(items);
      return;
    }
    for (const [column, { path }] of this.#suspects) {
      if (items.some((item) => valueAt(item, path) !== undefined)) this.#suspects.delete(column);
    }
  }

  /** One warning per column no result had, naming close matches and the command that lists the fields. */
  warnings(fieldsCommand: string): string[] {
    return [...this.#suspects].map(([column, { guesses }]) => {
      const guess = guesses.length ? `; did you mean ${orList(guesses)}?` : '';
      return `--columns ${column} matches no field of any result${guess} ('${fieldsCommand}' lists them)`;
    });
  }

  #suspect(items: readonly JsonObject[]): void {
    const known = new Set<string>();
    for (const path of discoverPaths(items)) {
      // A parent path (`buyer`) is a column too: its cells are JSON.
      for (let dot = path.indexOf('.'); dot > 0; dot = path.indexOf('.', dot + 1)) known.add(path.slice(0, dot));
      known.add(path);
    }
    for (const column of this.columns) {
      if (known.has(column)) continue;
      const alias = this.aliases.get(column.toLowerCase());
      const guesses = [...new Set([...(alias ? [alias] : []), ...closeMatches(column, known)])].slice(0, 3);
      this.#suspects.set(column, { path: compilePaths([column])[0]!, guesses });
    }
  }
}

function orList(items: readonly string[]): string {
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
