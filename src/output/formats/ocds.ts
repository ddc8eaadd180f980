import { defineFormat } from '../format-definition.js';

export const ocds = defineFormat({
  name: 'ocds',
  extensions: ['.ocds.json'],
  description: 'an OCDS 1.1 release package for open-contracting tools and data portals: one release per tender',
  traits: { rows: 'tenders', fixedColumns: false, streaming: 'page', binary: false, resumable: true, terminal: 'json', anyRecords: false, forPeople: false },
  flags: ['--ocid-prefix'],
  load: async () => {
    const { OcdsFormatter } = await import('./ocds-formatter.js');
    return (opts, resume) => new OcdsFormatter(opts, resume);
  },
});
