import { defineFormat } from '../format-definition.js';

export const json = defineFormat({
  name: 'json',
  extensions: ['.json'],
  description: 'one JSON array, streamed an element a line',
  traits: { rows: 'documents', fixedColumns: false, streaming: 'page', binary: false, resumable: true, terminal: 'json', anyRecords: true, forPeople: false },
  load: async () => {
    const { JsonFormatter } = await import('./json-formatter.js');
    return (opts, resume) => new JsonFormatter(opts, resume);
  },
});
