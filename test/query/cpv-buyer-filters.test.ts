import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addLocalFilters, addTenderFilters, localFilterFlags } from '../../src/commands/flags.js';
import { UsageError } from '../../src/errors.js';
import { parseBuyerIds, parseCpvCodes, parseCpvLevel } from '../../src/query/local-values.js';
import { tenderBody } from '../../src/query/tender-body.js';
import { localSelection } from '../../src/query/tender-selection.js';
import { runInProcess } from '../support/run.js';
import { pagedTenders } from '../support/fake-client.js';

const NOW = new Date('2026-03-15T10:30:00Z');

/** The flags a command with the local filters parses from argv, as its action sees them. */
function flags(argv: string[]) {
  const cmd = new Command('search').exitOverride().configureOutput({ writeErr: () => undefined });
  addTenderFilters(cmd);
  addLocalFilters(cmd);
  let seen: ReturnType<typeof localFilterFlags> | undefined;
  cmd.action((...args: unknown[]) => {
    seen = localFilterFlags(args[args.length - 1] as Command);
  });
  cmd.parse(argv, { from: 'user' });
  return seen!;
}

const usage = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('no usage error');
};

describe('--cpv', () => {
  it('takes codes of 2 to 8 digits, a check digit ignored, as the prefix each selects, each once', () => {
    expect(parseCpvCodes(['45'])).toEqual(['45']);
    expect(parseCpvCodes(['45000000', '45000000-7'])).toEqual(['45']);
    expect(parseCpvCodes(['4523,45230000', ' 45233140-2 '])).toEqual(['4523', '4523314']);
    expect(parseCpvCodes(['03000000'])).toEqual(['03']);
    expect(parseCpvCodes(['90910000,33'])).toEqual(['9091', '33']);
  });

  it('refuses what is not a code with the rule and the value', () => {
    for (const bad of ['roads', '4', '123456789', '45-', '45233140-22', '45 23', 'x45']) {
      expect(usage(() => parseCpvCodes([bad]))).toBe(
        `--cpv takes CPV codes of 2 to 8 digits, a check digit allowed (45, 4523, 45233140, 45233140-2): a code selects itself and every code below it, not '${bad.trim()}'`,
      );
    }
    expect(usage(() => parseCpvCodes(['45,,72']))).toBe('--cpv takes non-empty values separated by commas');
  });
});

describe('--buyer, --buyer-name and --cpv-level', () => {
  it('take buyer ids as written, each once; words of a name; a level of the hierarchy', () => {
    expect(parseBuyerIds(['ORG-DEU-0007,ORG-FRA-0001', 'ORG-DEU-0007'])).toEqual(['ORG-DEU-0007', 'ORG-FRA-0001']);
    expect(usage(() => parseBuyerIds(['a,']))).toBe('--buyer takes non-empty values separated by commas');
    expect([2, 3, 4, 5, 8].map((n) => parseCpvLevel(String(n)))).toEqual([2, 3, 4, 5, 8]);
    for (const bad of ['1', '6', '7', '9', '2.0', 'two', '']) {
      expect(usage(() => parseCpvLevel(bad))).toBe(`--cpv-level takes 2 (divisions), 3 (groups), 4 (classes), 5 (categories), 8 (each code), not '${bad}'`);
    }
  });
});

describe('flags → LocalSelection', () => {
  it('gives cpv prefixes, buyer ids and buyer-name words, with the other filters', () => {
    const parsed = flags(['--cpv', '45233140-2,4523', '--cpv', '90', '--buyer', 'ORG-DEU-0007', '--buyer', 'ORG-AUT-0001', '--buyer-name', 'Stadt  Köln', '-c', 'deu']);
    expect(parsed).toMatchObject({ cpv: ['45233140-2,4523', '90'], buyer: ['ORG-DEU-0007', 'ORG-AUT-0001'], buyerName: 'Stadt  Köln' });
    expect(localSelection(parsed, NOW)).toEqual({
      countries: ['DEU'],
      cpv: ['4523314', '4523', '90'],
      buyerIds: ['ORG-DEU-0007', 'ORG-AUT-0001'],
      buyerName: 'Stadt  Köln',
    });
    expect(localSelection(flags(['--buyer-name', '  ']), NOW)).toEqual({});
  });

  it('refuses them online with a usage error: add --local, or name a field the service may accept; nothing is sent', async () => {
    expect(usage(() => tenderBody(flags(['--cpv', '45'])))).toBe(
      `--cpv filters the local copy that tenders sync keeps: add --local, or send a field the service may accept though its spec does not show it: --filter 'cpvCodes=["45233140"]'`,
    );
    expect(usage(() => tenderBody(flags(['--buyer', 'ORG-1'])))).toBe(
      `--buyer filters the local copy that tenders sync keeps: add --local, or send a field the service may accept though its spec does not show it: --filter 'buyerIds=["ORG-DEU-0007"]'`,
    );
    expect(usage(() => tenderBody(flags(['--buyer-name', 'Köln'])))).toBe('--buyer-name filters the local copy that tenders sync keeps: add --local');
    for (const argv of [['search', '--cpv', '45'], ['export', '--buyer', 'X'], ['count', '--buyer-name', 'x'], ['watch', 'w', '--cpv', '45'], ['sync', 's', '--cpv', '45']]) {
      const r = await runInProcess(argv, pagedTenders(3));
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.client.requests).toHaveLength(0);
    }
  });
});

describe('count --by cpv and --cpv-level', () => {
  it('--cpv-level belongs to count --local --by cpv, said before anything runs', async () => {
    const run = (argv: string[]) => runInProcess(['count', ...argv], pagedTenders(3));
    expect(await run(['--cpv-level', '2'])).toMatchObject({ code: 2, stderr: 'tenders: --cpv-level groups the counts of count --local --by cpv: add --local --by cpv\n' });
    expect(await run(['--local', '--by', 'buyer.id', '--cpv-level', '2'])).toMatchObject({ code: 2, stderr: 'tenders: --cpv-level groups the counts per CPV code: add --by cpv\n' });
    expect((await run(['--local', '--by', 'cpv', '--cpv-level', '7'])).code).toBe(2);
    const online = await run(['--by', 'cpv']);
    expect(online.code).toBe(2);
    expect(online.stderr).toContain('add --local to count any field');
    expect(online.client.requests).toHaveLength(0);
  });
});
