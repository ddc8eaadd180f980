import { execute } from '../../src/cli.js';
import { memoryIO } from './io.js';

/** What `tenders ARGS` prints on stdout, in-process. */
export async function stdoutOf(args: string[], env: Record<string, string> = {}): Promise<string> {
  const t = memoryIO({ env });
  await execute(args, t.io);
  return t.stdout.text;
}

/** The command names a help text lists under `Commands:`, `help` left out. */
const commandsIn = (help: string) =>
  [...(help.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '').matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!).filter((name) => name !== 'help');

/** Every command path of the CLI (['orgs', 'search'], ...) and every long flag its help shows, as the before-stop hook reads them. */
export async function crawlHelp(): Promise<{ commands: string[][]; flags: string[] }> {
  const commands: string[][] = [];
  const flags = new Set<string>();
  const visit = async (path: string[]) => {
    const help = await stdoutOf([...path, '--help']);
    for (const flag of help.match(/--[a-z][a-z0-9-]+/g) ?? []) flags.add(flag);
    for (const name of commandsIn(help)) {
      commands.push([...path, name]);
      await visit([...path, name]);
    }
  };
  await visit([]);
  return { commands, flags: [...flags].sort() };
}
