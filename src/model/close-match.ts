/**
 * "Did you mean …?" for names the user typed: the candidates within a few
 * edits (a swapped pair of letters counts as one), compared without case; a
 * dot path also matches by its last part (`country` → `buyer.country`).
 */
export function closeMatches(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = name.toLowerCase();
  const budget = Math.max(1, Math.floor(wanted.length / 4));
  const scored: { candidate: string; score: number; order: number }[] = [];
  let order = 0;
  for (const candidate of candidates) {
    const other = candidate.toLowerCase();
    const score = Math.min(editDistance(wanted, other), lastPart(wanted) === lastPart(other) ? 1 : Infinity);
    if (score <= budget) scored.push({ candidate, score, order: order++ });
  }
  scored.sort((a, b) => a.score - b.score || a.order - b.order);
  return scored.slice(0, limit).map((s) => s.candidate);
}

function lastPart(path: string): string {
  return path.slice(path.lastIndexOf('.') + 1);
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = (rows[i] = new Array<number>(b.length + 1));
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row[j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      row[j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}
