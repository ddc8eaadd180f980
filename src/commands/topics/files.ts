import type { HelpTopic } from './topic.js';

export const filesTopic: HelpTopic = {
  name: 'files',
  summary: 'the files tenders writes, and what -o FILE may name',
  text: () => `Files tenders writes

-o FILE (search, export, orgs, watch), and beside it:
  FILE              replaced atomically when the run is complete
                    (fsync, then rename); a failed or interrupted run
                    leaves it as it was; a replaced FILE keeps its mode
  FILE.partial      the output while it is written; an interrupted
                    export keeps it for --resume
  FILE.resume.json  export: where an interrupted export stopped (the
                    query's fingerprint, the next cursor, the bytes and
                    rows written); removed when the export completes
  FILE.lock         one writer per FILE (pid, host, start time),
                    removed on every way out; a dead process's lock on
                    this host is taken over, another host's respected

What -o names, decided before any request:
  a file, or nothing yet   written atomically, as above
  a symbolic link          followed: its target is written atomically
  a device or FIFO         written straight into: no partial, no lock,
                           no resume (--resume with one is exit 2)
  /dev/stdout, /dev/fd/N   written into whatever the shell connected
  -                        stdout
  a directory, a missing   exit 2, before any request
  or unwritable directory

FILE.partial, FILE.resume.json and temporary files are created
exclusively (O_EXCL | O_NOFOLLOW) after unlinking whatever was at their
name, so a link planted there is never written through.

--receipt FILE (export, watch): a JSON record of the run, written
atomically when it ends, however it ends.

A watch (tenders watch NAME) keeps its state in $TENDERS_STATE_DIR,
else $XDG_STATE_HOME/tenders/watches, else ~/.local/state/tenders/watches
(directories mode 700, files 600):
  NAME.watch        what the last run saw (a hash per field; the title
                    and deadline for "gone" rows), replaced atomically
  NAME.watch.tmp    the next state while it is written
  NAME.watch.lock   one run per watch
With --db postgres://... (or TENDERS_DB naming one) the state is kept in
that copy instead (tables watches and watch_tenders), read into and saved
from a work directory in $TMPDIR (else /tmp) while a run goes.
`,
};
