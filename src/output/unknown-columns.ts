import { closeMatches } from './close-match.js';
import { discoverPaths } from './paths.js';

/**
 * Warnings for --columns paths that no result of the first page has (a typo
 * like `buyer.nme` prints empty cells otherwise), each naming the fields it
 * may have meant. `aliases` maps words a person might type (the table's
 * headers, such as `published`) to the path they stand for.
 */
export function unknownColumnWarnings(
  columns: readonly string[],
  items: readonly Record<string, unknown>[],
  fieldsCommand: string,
  aliases: ReadonlyMap<string, string> = new Map(),
): string[] {
  if (items.length === 0) return [];
  const known = new Set<string>();
  for (const path of discoverPaths(items)) {
    // A parent path (`buyer`) is a column too: its cells are JSON.
    for (let dot = path.indexOf('.'); dot > 0; dot = path.indexOf('.', dot + 1)) known.add(path.slice(0, dot));
    known.add(path);
  }
  return columns
    .filter((column) => !known.has(column))
    .map((column) => {
      const alias = aliases.get(column.toLowerCase());
      const matches = [...new Set([...(alias ? [alias] : []), ...closeMatches(column, known)])].slice(0, 3);
      const guess = matches.length ? `; did you mean ${orList(matches)}?` : '';
      return `--columns ${column} matches no field of the first page${guess} ('${fieldsCommand}' lists them)`;
    });
}

function orList(items: readonly string[]): string {
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
