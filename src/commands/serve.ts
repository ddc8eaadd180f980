import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import type { LogFormat } from '../serve/access-log.js';
import { DEFAULT_CACHE_MB } from '../serve/answer-memo.js';
import { DEFAULT_LISTEN, parseListen } from '../serve/listen.js';
import { withoutPasswords } from '../model/redact.js';
import { parseDurationMs, parseInteger, parseSavedName } from '../query/validate.js';
import { storeTarget } from '../store/location.js';
import type { CommandContext } from './context.js';
import { collect, dbOption, examples, type GlobalFlags } from './flags.js';

type ServeFlags = {
  db?: string;
  listen: string;
  tokenFile?: string;
  public?: boolean;
  sync?: string[];
  cors?: string[];
  secretFile?: string;
  logFormat: LogFormat;
  queryTimeout: string;
  maxConcurrency: string;
  headersTimeout: string;
  requestTimeout: string;
  cacheMb: string;
  cacheTtl: string;
};

export function registerServe(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('serve')
    .summary("serve the local copy with the service's own API, for a team's tools and for tenders --base-url")
    .description(
      "Serve the copy tenders sync keeps over HTTP with the tender service's own search operations (same paths, bodies, " +
        'cursors, totals, limits and errors), read-only, plus fields the service cannot answer (q, publishedFrom, ...; ' +
        'docs/serve.md). Prints its base URL as the first line on stdout when ready, one access-log line per request on ' +
        'stderr; SIGINT or SIGTERM lets requests in flight finish, then exits 0. Listens on loopback only unless told.',
    )
    .addOption(dbOption())
    .addOption(new Option('--listen <host:port>', 'where to listen; port 0 picks a free one').default(DEFAULT_LISTEN))
    .addOption(new Option('--token-file <file>', 'require Authorization: Bearer TOKEN, the first line of FILE (needed to listen beyond loopback)'))
    .addOption(new Option('--public', 'listen beyond loopback without a token (anyone who reaches the port may search)'))
    .addOption(new Option('--sync <name>', "serve only this sync's tenders, organisations and changes (repeatable; default all)").argParser(collect))
    .addOption(new Option('--cors <origin>', 'let browser pages of ORIGIN call the API (repeatable; * any origin); default none').argParser(collect))
    .addOption(new Option('--secret-file <file>', 'sign cursors with the first line of FILE (default: the secret kept in the copy)'))
    .addOption(new Option('--log-format <format>', 'the access log: one line of text, or one JSON object, per request').choices(['text', 'json']).default('text'))
    .addOption(new Option('--query-timeout <time>', "a request's time limit for reading the copy (500ms, 5s), then 503").default('5s'))
    .addOption(new Option('--max-concurrency <n>', 'requests reading the copy at once; the rest wait up to 1 s, then 503').default('32'))
    .addOption(new Option('--cache-mb <n>', 'keep answers until the copy changes, in at most N MiB (0 keeps none)').default(String(DEFAULT_CACHE_MB)))
    .addOption(new Option('--cache-ttl <time>', 'make a kept answer again after this long, whatever the copy (for "7d" and countdowns)').default('60s'))
    .addOption(new Option('--headers-timeout <time>', "a request's headers must arrive within this, else 408").default('10s'))
    .addOption(new Option('--request-timeout <time>', 'a whole request (headers and body) must arrive within this, else 408').default('30s'));
  cmd.addHelpText(
    'after',
    examples([
      'tenders serve                                       # http://127.0.0.1:8787, this machine only',
      'tenders serve --listen 127.0.0.1:0                  # a free port: read the URL from the first line',
      'tenders serve --listen 0.0.0.0:8787 --token-file /etc/tenders/token',
      'tenders serve -q --db postgres://reader@db.internal/tenders   # no access log',
      'tenders serve --sync deu-open --sync fra-open           # those two syncs only',
      'tenders serve --cors https://dash.example.org --log-format json',
      'tenders serve --query-timeout 2s --max-concurrency 8           # tighter bounds for a small machine',
      'tenders serve --cache-mb 0                          # every answer read from the copy',
      'tenders search --base-url http://127.0.0.1:8787 -c DEU --all   # the CLI as a client of the replica',
      "curl -s localhost:8787/api/v1/tenders/search -H 'content-type: application/json' -d '{\"q\":\"hospital\",\"exactTotal\":true}'",
    ]),
  );
  cmd.action(async (flags: ServeFlags, command: Command) => {
    const globals = command.optsWithGlobals<GlobalFlags>();
    const listen = parseListen(flags.listen);
    if (flags.public && flags.tokenFile !== undefined) throw new UsageError('--public and --token-file: choose one (a token protects the server, --public says it needs none)');
    if (!listen.loopback && !flags.public && flags.tokenFile === undefined) {
      throw new UsageError(`--listen ${flags.listen} reaches beyond this machine: give --token-file FILE (clients send its token) or --public (anyone may search)`);
    }
    const syncs = flags.sync?.map((name) => parseSavedName('sync', name));
    const plan = {
      db: storeTarget(flags.db, ctx.io.env),
      listen,
      tokenFile: flags.tokenFile,
      quiet: globals.quiet === true,
      syncs,
      cors: flags.cors,
      secretFile: flags.secretFile,
      logFormat: flags.logFormat,
      limits: { queryTimeoutMs: parseDurationMs('--query-timeout', flags.queryTimeout), maxConcurrency: parseInteger('--max-concurrency', flags.maxConcurrency, 1, 10_000) },
      memo: { maxBytes: parseInteger('--cache-mb', flags.cacheMb, 0, 1_000_000) * 1024 * 1024, ttlMs: parseDurationMs('--cache-ttl', flags.cacheTtl) },
      headersTimeoutMs: parseDurationMs('--headers-timeout', flags.headersTimeout),
      requestTimeoutMs: parseDurationMs('--request-timeout', flags.requestTimeout),
    };
    if (plan.headersTimeoutMs > plan.requestTimeoutMs) throw new UsageError('--headers-timeout cannot be longer than --request-timeout (the headers are part of the request)');
    if (globals.dryRun) {
      const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
      const who = flags.tokenFile !== undefined ? `a bearer token from ${flags.tokenFile}` : listen.loopback ? 'this machine only' : 'anyone (--public)';
      const what = syncs ? `the syncs ${syncs.join(', ')} of ${withoutPasswords(plan.db.location)}` : withoutPasswords(plan.db.location);
      ctx.io.stdout.write(`would serve ${what} at http://${host}:${listen.port} for ${who}\n`);
      return;
    }
    const { runServe } = await import('../run/serve.js');
    await runServe(plan, { io: ctx.io, signal: ctx.signal });
  });
}
