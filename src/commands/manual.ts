import type { Command } from 'commander';
import { ENVIRONMENT } from '../environment.js';
import { configTopic } from './topics/config.js';
import { exitCodesTopic } from './topics/exit-codes.js';
import { filesTopic } from './topics/files.js';
import { formatsTopic } from './topics/formats.js';

/**
 * The manual page tenders.1 (roff, man macros), made from the commander
 * program at build time: every command and flag the CLI has is in it, with
 * the help's own words, and the help topics give its reference sections.
 */
export function manPage(program: Command, version: string): string {
  const help = program.createHelp();
  const lines = [
    `.TH TENDERS 1 "" "tenders ${version}" "User Commands"`,
    '.SH NAME',
    `tenders \\- ${text(lowerFirst(program.description()))}`,
    '.SH SYNOPSIS',
    '.B tenders',
    '.RI [ options ] " command " [ arguments ]',
    '.SH DESCRIPTION',
    text(
      'tenders searches a procurement tender search service and exports what it finds: a readable table on a terminal; ' +
        'CSV, NDJSON or JSON streamed into pipelines; atomic, resumable exports and saved searches (watch) for cron. ' +
        "Bare tenders prints its help; 'tenders help COMMAND' a command's.",
    ),
    '.SH COMMANDS',
    ...commands(program).flatMap((cmd) => command(cmd, help)),
    '.SH "GLOBAL OPTIONS"',
    'Accepted before or after the command.',
    ...options(program, help),
    '.SH FORMATS',
    ...preformatted(formatsTopic.text(72)),
    '.SH CONFIGURATION',
    ...preformatted(configTopic.text(72)),
    '.SH ENVIRONMENT',
    ...ENVIRONMENT.flatMap((variable) => ['.TP', `.B ${text(variable.names.join(', '))}`, text(variable.description)]),
    '.SH "EXIT STATUS"',
    ...preformatted(exitCodesTopic.text(72)),
    '.SH FILES',
    ...preformatted(filesTopic.text(72)),
    '.SH EXAMPLES',
    ...preformatted(examplesOf(program)),
    '.SH "SEE ALSO"',
    text("tenders-sandbox --help (a local service to try things on); the guide and reference in the package's docs/ folder."),
  ];
  return `${lines.join('\n')}\n`;
}

/** Every command below the program, depth first, the help commands left out. */
function commands(cmd: Command): Command[] {
  return cmd.commands.filter((sub) => sub.name() !== 'help').flatMap((sub) => [sub, ...commands(sub)]);
}

function command(cmd: Command, help: ReturnType<Command['createHelp']>): string[] {
  const path = [];
  for (let c: Command | null = cmd; c; c = c.parent) path.unshift(c.name());
  return [
    `.SS "${text(path.join(' '))}"`,
    `.B ${text(`${path.slice(0, -1).join(' ')} ${help.commandUsage(cmd).replace(/^\S+\s*/, '')}`.trim())}`,
    '.PP',
    text(help.commandDescription(cmd)),
    ...options(cmd, help),
  ];
}

function options(cmd: Command, help: ReturnType<Command['createHelp']>): string[] {
  return help.visibleOptions(cmd).flatMap((option) => ['.TP', `.B ${text(help.optionTerm(option))}`, text(help.optionDescription(option))]);
}

/** The examples the help of `cmd` shows (its `Examples:` block). */
function examplesOf(cmd: Command): string {
  let out = '';
  const saved = cmd.configureOutput();
  cmd.configureOutput({ ...saved, writeOut: (s) => (out += s) });
  cmd.outputHelp();
  cmd.configureOutput(saved);
  return out.split('\nExamples:\n')[1]?.split('\n\n')[0] ?? '';
}

function preformatted(block: string): string[] {
  return ['.PP', '.nf', ...block.trimEnd().split('\n').map((line) => (line === '' ? '.sp' : text(line))), '.fi'];
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** Text as roff reads it: backslashes and hyphens escaped, no control line by accident, non-ASCII as \[uXXXX]. */
function text(s: string): string {
  const escaped = s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[^\x20-\x7e]/gu, (ch) => `\\[u${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
}
