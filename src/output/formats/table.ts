import { defineFormat } from '../format-definition.js';

export const table = defineFormat({
  name: 'table',
  extensions: [],
  description: 'a table fitted to the terminal width (the default of search on a terminal)',
  traits: { rows: 'columns', fixedColumns: false, streaming: 'first-rows', binary: false, resumable: true, terminal: 'self', anyRecords: true, forPeople: true },
  load: async () => {
    const { TableFormatter } = await import('../terminal/table-formatter.js');
    return (opts, resume) => new TableFormatter(opts, resume);
  },
});
