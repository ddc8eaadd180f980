import { defineFormat } from '../format-definition.js';

export const ics = defineFormat({
  name: 'ics',
  extensions: ['.ics'],
  description: 'a deadline calendar (RFC 5545): one event per tender with a deadline, with reminders (--remind)',
  traits: { rows: 'tenders', fixedColumns: false, streaming: 'page', binary: false, resumable: true, terminal: 'crlf-text', anyRecords: false, forPeople: false },
  flags: ['--remind'],
  load: async () => {
    const { IcsFormatter } = await import('./ics-formatter.js');
    return (opts, resume) => new IcsFormatter(opts, resume);
  },
});
