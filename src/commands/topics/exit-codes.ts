import type { HelpTopic } from './topic.js';

export const exitCodesTopic: HelpTopic = {
  name: 'exit-codes',
  summary: 'what each exit status means',
  text: () => `Exit status of tenders:

  0    success, also when the reader of stdout went away (| head),
       and for --help, --version and bare tenders
  1    failure while running: the network after the retries, an error
       status from the service, a malformed or oversized response, a
       write error (disk full, permission denied), a file held by
       another run's lock, a watch whose state file is damaged
  2    usage error, found before any request is sent: an unknown
       command or flag, a bad value (limit, country code, sort field,
       order, base URL), an -o or --receipt that cannot be written (a
       directory, a missing or unwritable directory), --resume
       without -o FILE
  130  interrupted by Ctrl-C (SIGINT)
  143  stopped by SIGTERM

Every failure prints one line starting "tenders:" on stderr saying what
happened and what to do, with --verbose too; only an unexpected error
("tenders: unexpected error: ...", a bug to report) adds its stack trace
with --verbose, its frames in src/. Text from the service in that line
has its control characters spelled out (\\x1b, \\n).
`,
};
