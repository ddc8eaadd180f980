import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/serve/server.js';
import { openStore } from '../../src/store/open.js';
import { pagedTenders } from '../support/fake-client.js';
import { filledCopy, syncInto } from '../support/local-copy.js';
import { readAtomWithPython, xmllintErrors } from '../support/readers.js';
import { runInProcess } from '../support/run.js';

/** tenders changes -f atom: the history as a feed, the one tenders serve publishes for a sync. */
describe('tenders changes -f atom', () => {
  it('writes a sync\'s feed as tenders serve serves it (but its own address), and every sync\'s under an id of its own', async () => {
    const { db, docs } = await filledCopy(30, 21);
    await syncInto(db, 'all', docs.slice(0, 26).map((d, i) => (i === 0 ? { ...d, title: 'Renamed' } : d)));
    const changes = (args: string[]) => runInProcess(['changes', ...args, '--db', db], pagedTenders(0));

    const mine = await changes(['all', '-f', 'atom']);
    expect(mine.code, mine.stderr).toBe(0);
    const store = await openStore(db, { mode: 'read' });
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: (err) => { throw err; } });
    let served: string;
    try {
      served = await (await fetch(`${server.url}/syncs/all/changes.atom`)).text();
    } finally {
      await server.close();
      await store.close();
    }
    expect(mine.stdout).toBe(served.replace(/\n *<link rel="self"[^\n]*/, ''));

    expect(xmllintErrors(mine.stdout)).toBe('');
    const feed = readAtomWithPython(mine.stdout);
    expect(feed.bozo).toBe(false);
    expect(feed.feed.id).toBe('urn:tenders:sync:all');
    // One entry per tender and run: the rename, and the four gone.
    expect(feed.entries).toHaveLength(5);
    expect(feed.entries.filter((e) => e.id.includes(':gone:'))).toHaveLength(4);

    const every = await changes(['-f', 'atom']);
    expect(readAtomWithPython(every.stdout).feed.id).toBe('urn:tenders:changes');
    expect(readAtomWithPython(every.stdout).entries).toHaveLength(5);
  });

  it('on a terminal, spells out what could drive or deceive it, as every format does there', async () => {
    const { db, docs } = await filledCopy(5, 4);
    await syncInto(db, 'all', docs.map((d, i) => (i === 0 ? { ...d, title: 'Roads \u202egnp.exe' } : d)));
    const tty = await runInProcess(['changes', '--db', db, '-f', 'atom'], pagedTenders(0), { stdoutTTY: true });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toContain('Roads \\u202egnp.exe');
    expect(tty.stdout).not.toContain('\u202e');
    const pipe = await runInProcess(['changes', '--db', db, '-f', 'atom'], pagedTenders(0));
    expect(pipe.stdout).toContain('Roads \u202egnp.exe');
  });

  it('takes no --columns, and a file named for a format of tenders only is refused', async () => {
    const { db } = await filledCopy(5, 2);
    const columns = await runInProcess(['changes', '--db', db, '-f', 'atom', '--columns', 'id'], pagedTenders(0));
    expect(columns).toMatchObject({ code: 2, stderr: 'tenders: changes --format atom writes whole entries: --columns goes with the other formats\n' });
    const ics = await runInProcess(['changes', '--db', db, '-o', 'changes.ics'], pagedTenders(0));
    expect(ics.code).toBe(2);
    expect(ics.stderr).toMatch(/^tenders: changes --format ics writes tenders only: choose table, csv, ndjson, json, tsv, atom\n$/);
  });
});
