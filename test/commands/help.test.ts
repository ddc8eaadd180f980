import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT } from '../../src/environment.js';
import { SETTING_KEYS } from '../../src/model/settings.js';
import { LIBPQ_VARIABLES } from '../../src/store/location.js';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

const run = (argv: string[]) => runInProcess(argv, pagedTenders(3));

describe('help', () => {
  it('tenders help orgs tenders and tenders orgs help tenders show the help of orgs tenders', async () => {
    for (const argv of [['help', 'orgs', 'tenders'], ['orgs', 'help', 'tenders'], ['orgs', 'tenders', '--help']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: tenders orgs tenders \[options\] <ORG_ID>\n/);
    }
    const root = await run(['help']);
    expect(root.stdout).toMatch(/^Usage: tenders \[options\] \[command\]\n/);
    expect(root.stdout).toMatch(/\n {2}tenders help TOPIC {7}config, environment, exit-codes, files, formats\n/);
  });

  it('a help topic or command that does not exist is a usage error naming the choices', async () => {
    const r = await run(['help', 'orgs', 'serch']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: "tenders: no help for 'tenders orgs serch' (Did you mean search?): choose one of search, tenders, fields\n" });
    expect((await run(['help', 'nope'])).stderr).toMatch(/'tenders nope': choose one of search, export, count, fields, orgs, watch, .*environment, exit-codes, files, formats\n$/);
    // A topic mistyped is offered as commands and flags are.
    expect((await run(['help', 'formts'])).stderr).toMatch(/^tenders: no help for 'tenders formts' \(Did you mean formats\?\): choose one of /);
  });

  it('tenders orgs --help has a description and examples', async () => {
    const r = await run(['orgs', '--help']);
    expect(r.stdout).toContain('Organisations are the buyers that publish tenders.');
    expect(r.stdout).toMatch(/\nExamples:\n {2}tenders orgs search --query hospital/);
  });

  it('--status help names open, the status the spec has, and says others are passed through', async () => {
    const r = await run(['search', '--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain("tender statuses: open is the one the service's API documents; others (closed, awarded, ...) are sent as given, lower-cased");
    const sent = await run(['search', '-s', 'Open,AWARDED']);
    expect(sent.client.requests[0]!.body.statuses).toEqual(['open', 'awarded']);
  });
});

describe('a run builds only the command it names (start-up)', () => {
  it.each([[['search']], [['export']], [['count']], [['fields']], [['orgs']], [['orgs', 'tenders']], [['watch']], [['sync']], [['changes']], [['completion']]])(
    '%j --help, built alone, is the help the whole program shows (tenders help ...)',
    async (command) => {
      const alone = await run([...command, '--help']);
      expect(alone.code).toBe(0);
      expect(alone.stdout).toBe((await run(['help', ...command])).stdout);
    },
  );

  it.each([
    [['--base-url', 'http://x', 'search', '--stauts', 'open'], "tenders: unknown option '--stauts' (Did you mean --status?) (see 'tenders search --help')\n"],
    [['--timeout=5', '-q', 'serch'], "tenders: unknown command 'serch' (Did you mean search?) (see 'tenders --help')\n"],
    [['--color', 'never', '--bogus', 'search'], "tenders: unknown option '--bogus' (see 'tenders --help')\n"],
  ])('%j: root flags and their values before the command are skipped; anything else gets the whole program', async (argv, line) => {
    const r = await run(argv);
    expect(r).toMatchObject({ code: 2, stderr: line });
  });

  it('a root flag whose value is a command name does not choose the command', async () => {
    const r = await run(['--rate', 'export', 'search', '--dry-run']);
    expect(r).toMatchObject({ code: 2, stderr: expect.stringMatching(/^tenders: --rate takes requests per second, .* not 'export'\n$/) });
  });
});

describe('usage errors', () => {
  it.each([
    [['search', '--stauts', 'open'], "tenders: unknown option '--stauts' (Did you mean --status?) (see 'tenders search --help')\n"],
    [['orgs', 'tenders'], "tenders: missing required argument 'ORG_ID' (see 'tenders orgs tenders --help')\n"],
    [['orgs', 'serch'], "tenders: unknown command 'serch' (Did you mean search?) (see 'tenders orgs --help')\n"],
    [['serch'], "tenders: unknown command 'serch' (Did you mean search?) (see 'tenders --help')\n"],
    [['export', '-f', 'xml'], /^tenders: --format takes one of table, csv, ndjson, json, tsv, ics, atom, ocds, parquet, not 'xml' \(see 'tenders export --help'\)\n$/],
  ])('%j is one tenders: line pointing to the help of its command', async (argv, line) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    if (typeof line === 'string') expect(r.stderr).toBe(line);
    else expect(r.stderr).toMatch(line);
  });
});

describe('tenders help environment', () => {
  it('lists every variable the CLI reads', async () => {
    const r = await run(['help', 'environment']);
    expect(r.code).toBe(0);
    for (const variable of ENVIRONMENT) expect(r.stdout).toContain(variable.names.join(', '));
  });

  it('every env.X and env["X"] read in src/ (the sandbox aside) is on the list, and so is every name a dynamic read can take', () => {
    const listed = new Set(ENVIRONMENT.flatMap((variable) => variable.names));
    const read = new Set<string>();
    const dynamic: string[] = [];
    for (const file of sourceFiles(join(__dirname, '../../src'))) {
      const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, ''); // code, not comments
      for (const m of text.matchAll(/\benv(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*(['"`])([^'"`]+)\2\s*\])/g)) read.add(m[1] ?? m[3]!);
      if (/\benv\[\s*[^'"`\s]/.test(text)) dynamic.push(file.slice(file.indexOf('src/')));
    }
    expect([...read].filter((name) => !listed.has(name))).toEqual([]);
    // Reads through a variable, each checked by the names it can take:
    expect(dynamic.sort()).toEqual(['src/api/proxy.ts', 'src/commands/settings.ts', 'src/query/endpoints.ts', 'src/store/location.ts']);
    expect(SETTING_KEYS.flatMap((key) => key.variables).filter((name) => !listed.has(name))).toEqual([]);
    expect(LIBPQ_VARIABLES.filter((name) => !listed.has(name))).toEqual([]);
    const proxyNames = [...readFileSync(join(__dirname, '../../src/api/proxy.ts'), 'utf8').matchAll(/'((?:https?|no)_proxy|(?:HTTPS?|NO)_PROXY)'/g)].map((m) => m[1]!);
    expect(proxyNames.length).toBeGreaterThan(0);
    const endpointNames = [...readFileSync(join(__dirname, '../../src/query/endpoints.ts'), 'utf8').matchAll(/envName: '([A-Z_]+)'/g)].map((m) => m[1]!);
    expect(endpointNames).toEqual(['TENDERS_ORGS_SEARCH_PATH', 'TENDERS_ORG_TENDERS_PATH']);
    expect([...proxyNames, ...endpointNames].filter((name) => !listed.has(name))).toEqual([]);
  });
});

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'sandbox') yield* sourceFiles(path);
    } else if (entry.name.endsWith('.ts')) yield path;
  }
}

describe('help at 80 columns', () => {
  it.each([[[]], [['search']], [['export']], [['count']], [['watch']], [['orgs', 'tenders']], [['completion']]])(
    '%j --help has no line a terminal would break mid-word; a long example goes on after \\',
    async (command) => {
      const r = await runInProcess([...command, '--help'], pagedTenders(1), { columns: 80 });
      for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    },
  );
});
