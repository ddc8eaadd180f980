import { defineFormat } from '../format-definition.js';

export const csv = defineFormat({
  name: 'csv',
  extensions: ['.csv'],
  description: 'RFC 4180 CSV, nested fields as dot-path columns fixed by the first page (the default of export)',
  traits: { rows: 'columns', fixedColumns: true, streaming: 'page', binary: false, resumable: true, terminal: 'text', anyRecords: true, forPeople: false },
  load: async () => {
    const { CsvFormatter } = await import('./csv-formatter.js');
    return (opts, resume) => new CsvFormatter(opts, resume);
  },
});
