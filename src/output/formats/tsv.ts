import { defineFormat } from '../format-definition.js';

export const tsv = defineFormat({
  name: 'tsv',
  extensions: ['.tsv'],
  description: 'tab-separated lines for cut, awk and sort: no quoting, tab, newline, CR and backslash escaped as \\t \\n \\r \\\\',
  traits: { rows: 'columns', fixedColumns: true, streaming: 'page', binary: false, resumable: true, terminal: 'text', anyRecords: true, forPeople: false },
  load: async () => {
    const { TsvFormatter } = await import('./tsv-formatter.js');
    return (opts, resume) => new TsvFormatter(opts, resume);
  },
});
