/** How dot-path headers are written: as paths, or as SQL-friendly snake_case names. */
export const HEADER_STYLES = ['path', 'snake'] as const;
export type HeaderStyle = (typeof HEADER_STYLES)[number];

/**
 * Headers for `paths` in `style`. `snake` gives names that SQL tools take
 * unquoted (`estimatedValue.amountEur` → `estimated_value_amount_eur`); two
 * paths that would get the same name are told apart by a suffix (`_2`).
 */
export function headerNames(paths: readonly string[], style: HeaderStyle): string[] {
  if (style === 'path') return [...paths];
  const used = new Set<string>();
  return paths.map((path) => {
    const base = snakeCase(path);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
    used.add(name);
    return name;
  });
}

export function snakeCase(path: string): string {
  const name = path
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
  return /^\p{N}/u.test(name) || name === '' ? `_${name}` : name;
}
