import { Command, CommanderError, type Option } from 'commander';
import { foldChoiceCase } from './commands/choices.js';
import type { CommandContext } from './commands/context.js';
import { addGlobalFlags, describeOption, examples } from './commands/flags.js';
import { finishHelp, HELP_TOPICS } from './commands/help.js';
import { COMMANDS, commandsFor, type CommandEntry } from './commands/registry.js';
import { applySettings } from './commands/settings.js';
import { EXIT, InterruptedError, RunError, UsageError, exitCodeFor, exitCodeOf } from './errors.js';
import { createIO, processInvocation, processIO, type ColorMode, type IO } from './io.js';
import { releaseHeldLocksSync } from './files/held-locks.js';
import { escapeControls } from './output/terminal/sanitize.js';
import { OutputClosedError } from './files/sink.js';
import { brokenAt } from './output/terminal/wrap.js';
import { VERSION } from './version.js';

/**
 * The program with the given commands (every one unless told): a run builds
 * only the command its argv names, and loads only that command's code.
 */
async function buildProgram(ctx: CommandContext, commands: (root: Command) => readonly CommandEntry[] = () => COMMANDS): Promise<Command> {
  const { io } = ctx;
  const program = new Command('tenders')
    .description('Search the public procurement tender service and export what it finds.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .configureHelp({ showGlobalOptions: true, optionDescription: (option: Option) => describeOption(option) })
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  // Root options first, so they are accepted after a subcommand too.
  addGlobalFlags(program);
  program.hook('preAction', (_root, action) => {
    applySettings(program, action, io);
    io.colorMode = action.optsWithGlobals<{ color: ColorMode }>().color;
  });
  program.addHelpText(
    'after',
    examples([
      'export TENDERS_BASE_URL=https://tenders.example.org',
      'tenders search --country DEU --status open --sort deadline',
      'tenders export --country FRA,ITA --format csv | csvsql ...',
      'tenders export -o /data/open-tenders.csv --status open',
      'tenders count --status open',
      'tenders orgs search --query hospital --country DEU',
      'tenders watch deu-open -c DEU -s open   # daily: what is new, changed, gone',
    ], `\nMore help:\n  tenders COMMAND --help   a command's flags, with examples\n  tenders help TOPIC       ${HELP_TOPICS.join(', ')}\n  man tenders              the manual\n`),
  );
  // Loaded at once, registered in the table's order: the root's help lists them so.
  const registers = await Promise.all(commands(program).map((entry) => entry.load()));
  for (const register of registers) register(program, ctx);
  finishHelp(program, ctx);
  foldChoiceCase(program);
  return program;
}

/** IO whose streams go nowhere, for what the build runs (scripts/build.js). */
async function silentIO(env: Record<string, string> = {}): Promise<IO> {
  const { PassThrough } = await import('node:stream');
  return createIO({ stdout: new PassThrough(), stderr: new PassThrough(), env });
}

/** The manual page, tenders.1: made at build time from the program itself (scripts/build.js). */
export async function manualPage(): Promise<string> {
  const silent = await silentIO();
  const program = await buildProgram({ io: silent, signal: new AbortController().signal, argv: [], invocation: ['tenders'], createClient: undiciClient(silent) });
  return (await import('./commands/manual.js')).manPage(program, VERSION);
}

/**
 * Runs `tenders ARGV` with nothing to see its output and no service behind it
 * (meant for --dry-run): the build runs a few, so that the V8 code cache it
 * saves beside the bundle holds the code a run compiles (bin/tenders.js).
 */
export async function silentRun(argv: string[]): Promise<number> {
  return execute(argv, await silentIO({ TENDERS_BASE_URL: 'http://127.0.0.1:9' }));
}

/** The real HTTP client; undici loads only when a command needs it. */
const undiciClient =
  (io: IO): CommandContext['createClient'] =>
  async (connection, log, retryNotice) =>
    new (await import('./api/client.js')).ApiClient({ ...connection, env: io.env, log, retryNotice });

/**
 * Runs the CLI in-process over the given IO (and client, for tests); resolves
 * to the exit code. Never throws and never touches `process`.
 */
export async function execute(
  argv: string[],
  io: IO,
  opts: { signal?: AbortSignal; createClient?: CommandContext['createClient']; fs?: CommandContext['fs']; invocation?: readonly string[] } = {},
): Promise<number> {
  // Made when first asked for (main's opts.signal is a getter): a run that never waits on anything, a usage
  // error or a dry run, does not load Node's AbortController (a twentieth of a dry run's start-up).
  let signal: AbortSignal | undefined;
  const signalOf = () => (signal ??= opts.signal ?? new AbortController().signal);
  const ctx: CommandContext = {
    io,
    get signal() {
      return signalOf();
    },
    argv,
    // Read when a hint names the next page (main's is worked out then).
    get invocation() {
      return opts.invocation ?? ['tenders'];
    },
    createClient: opts.createClient ?? undiciClient(io),
    fs: opts.fs,
  };
  const program = await buildProgram(ctx, (root) => commandsFor(root, argv));
  try {
    // Bare `tenders` asks what it can do, as bare `gh` and `git` do: help on stdout, exit 0.
    if (argv.length === 0) return (program.outputHelp(), EXIT.ok);
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    // A signal nothing asked for cannot have stopped the output.
    return await report(io, signal?.aborted && err instanceof OutputClosedError ? signal.reason : err, Boolean(program.opts().verbose));
  }
}

/** The process entry: real streams, signals, `argv` as process.argv gives it. */
export async function main(argv: string[]): Promise<number> {
  let controller: AbortController | undefined;
  let invocation: string[] | undefined;
  const abortion = () => (controller ??= new AbortController());
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) {
      // A second Ctrl-C: stop now, without the unwinding that would release the output's lock.
      releaseHeldLocksSync();
      process.exit(exitCodeFor(signal));
    }
    interrupted = true;
    abortion().abort(new InterruptedError(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  quietExperimentalWarnings();
  try {
    return await execute(argv.slice(2), processIO(), {
      get signal() {
        return abortion().signal;
      },
      get invocation() {
        return (invocation ??= processInvocation());
      },
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * undici warns on stderr that its SOCKS5 proxy support is experimental, on
 * every run through a socks5:// proxy: noise for a user who chose the proxy,
 * and not a `tenders:` line. Other warnings still reach stderr.
 */
function quietExperimentalWarnings(): void {
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SOCKS5? proxy support is experimental/i.test(text)) return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}

/**
 * One `tenders:` line for any failure, and its exit code. An expected failure (a usage error, a
 * service's answer, a database that is not there: RunError) is that line alone, --verbose or not;
 * an unexpected error's stack follows it with --verbose, its frames in src/ (source-stack.ts).
 */
async function report(io: IO, err: unknown, verbose: boolean): Promise<number> {
  if (err instanceof OutputClosedError) return EXIT.ok; // the reader has what it wanted
  if (err instanceof CommanderError) {
    if (err.exitCode === 0) return EXIT.ok; // help and version
    // A command group without its subcommand: commander showed its help on stderr.
    if (err.code === 'commander.help') io.stderr.write('tenders: missing command: choose one of those above\n');
    return EXIT.usage;
  }
  // Messages carry text from the service (its error message, a body excerpt): spelled out, one line (on a terminal, broken
  // between words at its width rather than wherever the terminal would cut a word).
  const say = (line: string) => io.stderr.write(`${brokenAt(`tenders: ${escapeControls(line)}`, io.stderrWidth())}\n`);
  const code = exitCodeOf(err);
  if (err instanceof InterruptedError || err instanceof UsageError || err instanceof RunError) say(err.message);
  else say(`unexpected error: ${(err as Error)?.message ?? String(err)}${verbose ? '' : ' (run with --verbose for details)'}`);
  if (code === EXIT.failure && verbose && !(err instanceof RunError) && err instanceof Error && err.stack) {
    const { sourceStack } = await import('./files/source-stack.js');
    io.stderr.write(`${sourceStack(err.stack).split('\n').map(escapeControls).join('\n')}\n`);
  }
  return code;
}
