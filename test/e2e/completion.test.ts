import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli.js';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { requireTool } from '../support/tools.js';
import { bashCompletions, fishCompletions } from '../support/completion.js';

const has = (shell: string) => requireTool(shell, `apt-get install ${shell}`);
const dir = mkdtempSync(join(tmpdir(), 'tenders-completion-e2e-'));
const sb = useSandbox({ size: 300, seed: 2 });

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

  it('every shell offers the saved syncs after sync, changes and --sync, the saved watches after watch, the profiles after --profile', async () => {
    const home = testDir();
    const config = join(home, 'config.toml');
    writeFileSync(config, 'rate = 5\n[profile.work]\nretries = 2\ntimeout = 30000\n[profile.home]\nrate = 1\n');
    const env = { ...process.env, TENDERS_DB: join(home, 'tenders.db'), TENDERS_STATE_DIR: join(home, 'watches'), TENDERS_CONFIG: config };
    // A copy with two syncs and a state with one watch, against a sandbox.
    for (const args of [['sync', 'deu-open', '-c', 'DEU'], ['sync', 'fr-all', '-c', 'FRA'], ['watch', 'ita-news', '-c', 'ITA']]) {
      expect((await runCli(args, sb.url, { env: { TENDERS_DB: env.TENDERS_DB, TENDERS_STATE_DIR: env.TENDERS_STATE_DIR } })).code).toBe(0);
    }
    const run = (shell: string, script: string, args: string[]) =>
      execFileSync(shell, args, { env: { ...env, TENDERS_COMPLETION_SCRIPT: script } }).toString().split('\n').filter(Boolean).sort();
    // `tenders` as a shell function running the built CLI, as a user's PATH would.
    const tenders = `tenders() { '${process.execPath}' '${BIN}' "$@"; }`;
    if (has('bash')) {
      const file = join(home, 'tenders.bash');
      writeFileSync(file, (await runCli(['completion', 'bash'], undefined)).stdout);
      const bash = (...words: string[]) =>
        run('bash', file, ['--norc', '-c', `${tenders}; source "$TENDERS_COMPLETION_SCRIPT"; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _tenders; printf "%s\\n" "\${COMPREPLY[@]}"`, 'bash', ...words]);
      expect(bash('tenders', 'sync', '')).toEqual(['deu-open', 'fr-all']);
      expect(bash('tenders', 'changes', 'd')).toEqual(['deu-open']);
      expect(bash('tenders', 'search', '--local', '--sync', '')).toEqual(['deu-open', 'fr-all']);
      expect(bash('tenders', 'watch', '')).toEqual(['ita-news']);
      expect(bash('tenders', '--profile', '')).toEqual(['home', 'work']);
      expect(bash('tenders', 'config', 'get', 'ret')).toEqual(['retries']);
    }
    if (has('zsh')) {
      const file = join(home, '_tenders');
      writeFileSync(file, (await runCli(['completion', 'zsh'], undefined)).stdout);
      const zsh = (...words: string[]) => {
        const stubs = 'compdef() { :; }; _describe() { :; }; compadd() { [[ $1 == -- ]] && shift; local v; for v; do [[ $v == ${PREFIX}* ]] && print -r -- "$v"; done }';
        return run('zsh', file, ['-f', '-c', `${tenders}; ${stubs}; source "$TENDERS_COMPLETION_SCRIPT"; words=("$@"); CURRENT=$#words; PREFIX=$words[CURRENT]; IPREFIX=; _tenders`, 'zsh', ...words]);
      };
      expect(zsh('tenders', 'sync', '')).toEqual(['deu-open', 'fr-all']);
      expect(zsh('tenders', 'export', '--local', '--sync', 'f')).toEqual(['fr-all']);
      expect(zsh('tenders', 'watch', '')).toEqual(['ita-news']);
      expect(zsh('tenders', 'search', '--profile', 'w')).toEqual(['work']);
    }
    if (has('fish')) {
      const file = join(home, 'tenders.fish');
      writeFileSync(file, (await runCli(['completion', 'fish'], undefined)).stdout);
      const fish = (line: string) =>
        run('fish', file, ['--no-config', '-c', `function tenders; '${process.execPath}' '${BIN}' $argv; end; source $TENDERS_COMPLETION_SCRIPT; complete -C '${line}'`]).map((l) => l.split('\t')[0]!);
      expect(fish('tenders sync ')).toEqual(['deu-open', 'fr-all']);
      expect(fish('tenders changes ')).toEqual(['deu-open', 'fr-all']);
      expect(fish('tenders watch ')).toEqual(['ita-news']);
      expect(fish('tenders count --local --sync ')).toEqual(['deu-open', 'fr-all']);
      expect(fish('tenders --profile ')).toEqual(['home', 'work']);
      expect(fish('tenders config unset ti')).toEqual(['timeout']);
    }
  });
});
