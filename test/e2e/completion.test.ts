import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli.js';
import { requireTool } from '../support/tools.js';
import { bashCompletions, fishCompletions } from '../support/completion.js';

const has = (shell: string) => requireTool(shell, `apt-get install ${shell}`);
const dir = mkdtempSync(join(tmpdir(), 'tenders-completion-e2e-'));

describe('tenders completion, as docs/commands.md installs it', () => {
  it.skipIf(!has('bash'))('bash: eval "$(tenders completion bash)" registers _tenders, which completes commands, flags and values', async () => {
    const r = await runCli(['completion', 'bash'], undefined);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const file = join(dir, 'tenders.bash');
    writeFileSync(file, r.stdout);
    const registered = execFileSync('bash', ['--norc', '-c', `tenders() { '${process.execPath}' '${BIN}' "$@"; }; eval "$(tenders completion bash)"; complete -p tenders`]).toString();
    expect(registered.trim()).toBe('complete -F _tenders tenders');
    expect(bashCompletions(file, ['tenders', 'orgs', 't'])).toEqual(['tenders']);
    expect(bashCompletions(file, ['tenders', 'export', '--format', ''])).toEqual(['table', 'csv', 'ndjson', 'json', 'tsv', 'ics', 'atom', 'ocds', 'parquet']);
    expect(bashCompletions(file, ['tenders', 'search', '--order', 'd'])).toEqual(['desc']);
  });

  it.skipIf(!has('fish'))('fish: the script as a completions file', async () => {
    const r = await runCli(['completion', 'fish'], undefined);
    const file = join(dir, 'tenders.fish');
    writeFileSync(file, r.stdout);
    expect(fishCompletions(file, 'tenders search --header-style ').sort()).toEqual(['path', 'snake']);
  });

  it.skipIf(!has('zsh'))('zsh: the script loads in a real zsh with compinit and registers _tenders', async () => {
    const r = await runCli(['completion', 'zsh'], undefined);
    const file = join(dir, '_tenders');
    writeFileSync(file, r.stdout);
    const out = execFileSync('zsh', ['-f', '-c', `autoload -U compinit && compinit -u -d '${join(dir, 'zcompdump')}'; source '${file}'; print -r -- $_comps[tenders]`]).toString();
    expect(out.trim()).toBe('_tenders');
  });
});
