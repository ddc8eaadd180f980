/** The first `n` rows of a store's batches; the generator is closed (its statement released) once they are read. */
export async function firstRows<T>(batches: AsyncGenerator<T[]>, n: number): Promise<T[]> {
  const rows: T[] = [];
  if (n <= 0) return rows;
  for await (const batch of batches) {
    rows.push(...batch.slice(0, n - rows.length));
    if (rows.length >= n) break;
  }
  return rows;
}
