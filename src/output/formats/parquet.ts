import { defineFormat } from '../format-definition.js';

export const parquet = defineFormat({
  name: 'parquet',
  extensions: ['.parquet'],
  description: 'typed columns for pandas, DuckDB, Polars and Spark, plus the tender as JSON in a doc column (binary: -o or a pipe)',
  traits: { rows: 'columns', fixedColumns: true, streaming: 'end', binary: true, resumable: false, terminal: 'none', anyRecords: false, forPeople: false },
  load: async () => {
    const { ParquetFormatter } = await import('./parquet-formatter.js');
    return (opts) => new ParquetFormatter(opts);
  },
});
