import { defineFormat } from '../format-definition.js';

export const ndjson = defineFormat({
  name: 'ndjson',
  extensions: ['.ndjson', '.jsonl'],
  description: 'one JSON object a line, as the service sent it (the default in a pipe)',
  traits: { rows: 'documents', fixedColumns: false, streaming: 'page', binary: false, resumable: true, terminal: 'json', anyRecords: true, forPeople: false },
  load: async () => {
    const { NdjsonFormatter } = await import('./ndjson-formatter.js');
    return (opts, resume) => new NdjsonFormatter(opts, resume);
  },
});
