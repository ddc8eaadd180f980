import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionModel } from '../../src/commands/completion-model.js';
import { requireTool } from '../support/tools.js';
import { bashCompletions, fishCompletions, zshCompletions } from '../support/completion.js';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';
import { CPV_DIVISIONS } from '../../src/model/cpv.js';

const has = (shell: string) => requireTool(shell, `apt-get install ${shell}`);
const dir = mkdtempSync(join(tmpdir(), 'tenders-completion-'));
writeFileSync(join(dir, 'open.csv'), '');
writeFileSync(join(dir, 'other.txt'), '');

/** The script `tenders completion SHELL` prints, in a file. */
async function script(shell: string): Promise<string> {
  const r = await runInProcess(['completion', shell], pagedTenders(0));
  expect(r.code).toBe(0);
  const file = join(dir, `tenders.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

/** What is offered after the words typed, the same for each shell: [words, expected]. */
const CASES: [string[], string[]][] = [
  [['tenders', ''], ['search', 'export', 'count', 'fields', 'orgs', 'watch', 'sync', 'changes', 'show', 'cpv', 'config', 'serve', 'completion', 'help']],
  [['tenders', 'o'], ['orgs']],
  [['tenders', 'config', ''], ['list', 'get', 'set', 'unset', 'path', 'edit', 'help']],
  [['tenders', 'config', 'set', ''], ['base-url', 'db', 'rate', 'retries', 'timeout', 'max-wait', 'color', 'pager', 'cpv-paths']],
  [['tenders', 'config', 'get', 'max'], ['max-wait']],
  [['tenders', 'orgs', ''], ['search', 'tenders', 'fields', 'help']],
  [['tenders', 'search', '--f'], ['--filter', '--format']],
  [['tenders', 'search', '--format', ''], ['table', 'csv', 'ndjson', 'json', 'tsv', 'ics', 'atom', 'ocds', 'parquet']],
  [['tenders', 'search', '-f', 'n'], ['ndjson']],
  [['tenders', 'search', '--sort', ''], ['publicationDate', 'deadline', 'estimatedValue']],
  [['tenders', 'search', '--order', ''], ['asc', 'desc']],
  [['tenders', 'export', '--color', ''], ['auto', 'always', 'never']],
  [['tenders', 'export', '--header-style', ''], ['path', 'snake']],
  [['tenders', 'count', '--by', ''], ['country', 'status']],
  [['tenders', '--retries', '0', 'orgs', 'tenders', 'ORG-1', '--st'], ['--status']],
  [['tenders', 'search', '-c', 'deu', '--dry'], ['--dry-run']],
  [['tenders', 'completion', ''], ['bash', 'zsh', 'fish']],
  [['tenders', 'help', 'e'], ['export', 'environment', 'exit-codes']],
  [['tenders', 'help', 'orgs', ''], ['search', 'tenders', 'fields']],
  [['tenders', 'help', 'orgs', 't'], ['tenders']],
  [['tenders', 'orgs', 'help', ''], ['search', 'tenders', 'fields']],
  [['tenders', 'export', '-o', 'op'], ['open.csv']],
  [['tenders', 'search', '--cursor', ''], []],
  [['tenders', 'search', '--cpv', ''], [...CPV_DIVISIONS]],
  [['tenders', 'count', '--local', '--cpv', '4'], ['41', '42', '43', '44', '45', '48']],
];

const sorted = (values: string[]) => [...values].sort();

describe.skipIf(!has('bash'))('bash completion', () => {
  it.each(CASES)('%j', async (words, expected) => {
    expect(sorted(bashCompletions(await script('bash'), words, dir))).toEqual(sorted(expected));
  });

  it('completes a value after = as one word, or as bash splits it at =', async () => {
    const file = await script('bash');
    expect(bashCompletions(file, ['tenders', 'search', '--format', '=', 'c'], dir)).toEqual(['csv']);
    expect(bashCompletions(file, ['tenders', 'search', '--format=c'], dir)).toEqual(['--format=csv']);
    expect(bashCompletions(file, ['tenders', 'search', '--format', '=', 'csv', '--ord'], dir)).toEqual(['--order']);
  });
});

describe.skipIf(!has('zsh'))('zsh completion', () => {
  it.each(CASES)('%j', async (words, expected) => {
    expect(sorted(zshCompletions(await script('zsh'), words, dir))).toEqual(sorted(expected));
  });

  it('completes a value after =', async () => {
    expect(zshCompletions(await script('zsh'), ['tenders', 'search', '--format=c'], dir)).toEqual(['--format=csv']);
  });
});

describe.skipIf(!has('fish'))('fish completion', () => {
  it.each(CASES)('%j', async (words, expected) => {
    expect(sorted(fishCompletions(await script('fish'), words.join(' '), dir))).toEqual(sorted(expected));
  });
});

describe('the completion model', () => {
  it('is read from the program: a command or flag added anywhere is completed, with its choices', () => {
    const program = new Command('tenders').option('--base-url <url>');
    const later = program.command('later').summary('added by someone else');
    later.addOption(new Option('--mode <mode>', 'how').choices(['fast', 'slow']));
    later.option('--receipt <file>', 'a file');
    const model = completionModel(program);
    expect(model.commands[0]!.subcommands).toEqual([{ name: 'later', description: 'added by someone else' }, expect.objectContaining({ name: 'help' })]);
    const options = model.commands.find((cmd) => cmd.path.join(' ') === 'later')!.options;
    expect(options.find((o) => o.names.includes('--mode'))).toMatchObject({ takesValue: true, choices: ['fast', 'slow'], file: false });
    expect(options.find((o) => o.names.includes('--receipt'))).toMatchObject({ file: true });
    expect(options.find((o) => o.names.includes('--base-url'))).toMatchObject({ takesValue: true }); // the program's own flags work after a command
  });

  it('an unknown shell is a usage error naming the three', async () => {
    const r = await runInProcess(['completion', 'tcsh'], pagedTenders(0));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: completion SHELL takes one of bash, zsh, fish, not 'tcsh' \(see 'tenders completion --help'\)\n$/);
  });
});
