import { Command, CommanderError } from 'commander';
import { registerCount } from './commands/count.js';
import { registerExport } from './commands/export.js';
import { addGlobalOptions, examples } from './commands/options.js';
import { registerOrgs } from './commands/orgs.js';
import { registerSearch } from './commands/search.js';
import { EXIT, InterruptedError, RunError, UsageError, exitCodeFor } from './errors.js';
import { VERSION } from './version.js';


function buildProgram(signal: AbortSignal): Command {
  const program = new Command('tenders')
    .description('Search the public procurement tender service and export what it finds.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      outputError: (message, write) =>
        write(`tenders: ${message.replace(/^error: /, '').trim()} (see 'tenders --help')\n`),
    });
  // Root options first, so they are accepted after a subcommand too.
  addGlobalOptions(program);
  program.addHelpText(
    'after',
    examples([
      'export TENDERS_BASE_URL=https://tenders.example.org',
      'tenders search --country DEU --status open --sort deadline',
      'tenders export --country FRA,ITA --format csv | csvsql ...',
      'tenders export -o /data/open-tenders.csv --status open',
      'tenders count --status open',
      'tenders orgs search --query hospital --country DEU',
    ]) + "\nRun 'tenders <command> --help' for a command's flags.\n",
  );
  const ctx = { signal };
  registerSearch(program, ctx);
  registerExport(program, ctx);
  registerCount(program, ctx);
  registerOrgs(program, ctx);
  return program;
}

/** Runs the CLI; resolves to the process exit code. Never throws. */
export async function main(argv: string[]): Promise<number> {
  const controller = new AbortController();
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(exitCodeFor(signal)); // a second Ctrl-C: stop now
    interrupted = true;
    controller.abort(new InterruptedError(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A reader that went away (`--help | head`) is not a crash; the output sink
  // has its own listener and stops the run.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);

  const verbose = argv.includes('-v') || argv.includes('--verbose');
  try {
    await buildProgram(controller.signal).parseAsync(argv);
    return EXIT.ok;
  } catch (err) {
    return report(err, verbose);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function report(err: unknown, verbose: boolean): number {
  if (err instanceof CommanderError) {
    if (err.exitCode === 0) return EXIT.ok; // help and version
    // A command group without its subcommand: commander showed its help on stderr.
    if (err.code === 'commander.help') process.stderr.write("tenders: missing command: choose one of those above\n");
    return EXIT.usage;
  }
  const say = (line: string) => process.stderr.write(`tenders: ${line}\n`);
  if (err instanceof InterruptedError) {
    say(err.message);
    return exitCodeFor(err.signal);
  }
  if (err instanceof UsageError) {
    say(err.message);
    return EXIT.usage;
  }
  if (err instanceof RunError) say(err.message);
  else say(`unexpected error: ${(err as Error)?.message ?? String(err)}${verbose ? '' : ' (run with --verbose for details)'}`);
  if (verbose && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return EXIT.failure;
}
