import { execFileSync, spawnSync } from 'node:child_process';
import { scaled } from './scale.js';

/**
 * What bash's completion offers after the words typed (the last one being
 * completed, '' for a new word): the script sourced in a bash subprocess,
 * COMP_WORDS and COMP_CWORD set as bash sets them, the function called.
 */
export function bashCompletions(scriptFile: string, words: string[], cwd?: string): string[] {
  const run = 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _tenders; printf "%s\\n" "${COMPREPLY[@]}"';
  return lines(execFileSync('bash', ['--norc', '-c', run, 'complete', scriptFile, ...words], { cwd, timeout: SHELL_TIMEOUT }).toString());
}

/**
 * What zsh's completion would offer: the script sourced in a zsh subprocess
 * with compsys's functions (compadd, _describe, _files, compset) stubbed to
 * print what they are given, `words` and CURRENT set as zsh sets them.
 */
export function zshCompletions(scriptFile: string, words: string[], cwd?: string): string[] {
  const stubs = [
    'compdef() { :; }',
    // Each prints what zsh would offer: the candidates that begin with what is typed ($PREFIX), after $IPREFIX.
    // _describe DESCRIPTION ARRAY_NAME: entries "name:description".
    '_describe() { local e n; for e in "${(@P)2}"; do n=${${e%%:*}//\\\\:/:}; [[ $n == ${PREFIX}* ]] && print -r -- "$IPREFIX$n"; done }',
    '_files() { local f; for f in ${PREFIX}*(N); do print -r -- "$IPREFIX$f"; done }',
    'compadd() { [[ $1 == -- ]] && shift; local v; for v; do [[ $v == ${PREFIX}* ]] && print -r -- "$IPREFIX$v"; done }',
    'compset() { [[ $1 == -P ]] && [[ $PREFIX == ${~2}* ]] && { IPREFIX=${(M)PREFIX##${~2}}; PREFIX=${PREFIX#${~2}}; return 0 }; return 1 }',
  ].join('\n');
  const run = `${stubs}\nsource "$1"; shift; words=("$@"); CURRENT=$#words; PREFIX=$words[CURRENT]; IPREFIX=; _tenders`;
  // Its status is that of the last test it made (no match is not a failure): stdout is the answer.
  return lines(spawnSync('zsh', ['-f', '-c', run, 'complete', scriptFile, ...words], { cwd, timeout: SHELL_TIMEOUT }).stdout.toString());
}

/** What fish offers for a command line (`complete -C`), the script sourced first; names only. */
export function fishCompletions(scriptFile: string, commandLine: string, cwd?: string): string[] {
  const run = 'source $argv[1]; complete -C $argv[2]';
  return lines(execFileSync('fish', ['--no-config', '-c', run, scriptFile, commandLine], { cwd, timeout: SHELL_TIMEOUT }).toString()).map((line) => line.split('\t')[0]!);
}

/** A shell that hangs blocks this worker (these calls are synchronous): stop it, scaled to the machine. */
const SHELL_TIMEOUT = scaled(30_000);

const lines = (text: string) => text.split('\n').filter((line) => line !== '');
