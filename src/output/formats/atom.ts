import { defineFormat } from '../format-definition.js';

export const atom = defineFormat({
  name: 'atom',
  extensions: ['.atom'],
  description: 'an Atom 1.0 feed (RFC 4287) for feed readers: one entry per tender, a short summary for a person, the JSON beside it',
  traits: { rows: 'tenders', fixedColumns: false, streaming: 'page', binary: false, resumable: true, terminal: 'text', anyRecords: false, forPeople: false },
  load: async () => {
    const { AtomFormatter } = await import('./atom-formatter.js');
    return (opts, resume) => new AtomFormatter(opts, resume);
  },
});
