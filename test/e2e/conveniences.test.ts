import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { ndjson, runCli } from '../support/cli.js';

const PATH = '/api/v1/tenders/search';
const sb = useSandbox({ size: 3000, seed: 11 });

describe('paging', () => {
  it('search --all asks for pages of 100', async () => {
    const before = sb.requests.length;
    const r = await runCli(['search', '--all', '-s', 'open'], sb.url);
    expect(r.code).toBe(0);
    const truth = sb.truth(PATH, { statuses: ['open'] });
    expect(ndjson(r.stdout)).toEqual(truth);
    const sent = sb.requests.slice(before).map((q) => (q.body as { limit?: number }).limit);
    expect(sent).toEqual(Array(Math.ceil(truth.length / 100)).fill(100));
  });
});

describe('--dry-run', () => {
  it('prints the first request and sends nothing, even to a service that is not there', async () => {
    const before = sb.requests.length;
    const r = await runCli(['search', '-c', 'deu', '-s', 'Open', '-n', '5', '--dry-run'], sb.url);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`POST ${sb.url}${PATH}\n${JSON.stringify({ limit: 5, buyerCountries: ['DEU'], statuses: ['open'] }, null, 2)}\n`);
    expect(sb.requests.length).toBe(before);
    const nowhere = await runCli(['export', '-c', 'deu,fra', '--parallel', '2', '--dry-run'], 'http://127.0.0.1:9');
    expect(nowhere.code).toBe(0);
    expect(nowhere.stdout.match(/^POST http:\/\/127\.0\.0\.1:9\/api\/v1\/tenders\/search$/gm)).toHaveLength(2);
    // What it prints a script can send as it is: the URL on the first line, the body after it.
    const [line, ...json] = r.stdout.split('\n');
    const answer = await fetch(line!.slice('POST '.length), { method: 'POST', headers: { 'content-type': 'application/json' }, body: json.join('\n') });
    const searched = await runCli(['search', '-c', 'deu', '-s', 'open', '-n', '5'], sb.url);
    expect(((await answer.json()) as { tenders: unknown[] }).tenders).toEqual(ndjson(searched.stdout));
  });
});

describe('help', () => {
  it('help orgs tenders, help environment, and a typo in a subcommand: one line pointing to its help', async () => {
    const nested = await runCli(['help', 'orgs', 'tenders'], sb.url);
    expect(nested).toMatchObject({ code: 0, stderr: '' });
    expect(nested.stdout).toMatch(/^Usage: tenders orgs tenders \[options\] <ORG_ID>\n/);
    const env = await runCli(['help', 'environment'], sb.url);
    expect(env.stdout).toMatch(/^ {2}TENDERS_BASE_URL {2,}the service's base URL/m);
    const typo = await runCli(['search', '--stauts', 'open'], sb.url);
    expect(typo).toEqual({ code: 2, signal: null, stdout: '', stderr: "tenders: unknown option '--stauts' (Did you mean --status?) (see 'tenders search --help')\n" });
  });
});

describe('base-URL mistakes', () => {
  it('/api/v1 in the base URL is dropped; no scheme, https to plain http and an unknown organisation get one line of advice', async () => {
    const doubled = await runCli(['search', '-n', '2', '--base-url', `${sb.url}/api/v1`], undefined);
    expect(doubled.code).toBe(0);
    expect(ndjson(doubled.stdout)).toEqual(sb.truth(PATH, {}).slice(0, 2));
    const bare = await runCli(['search', '--base-url', sb.url.replace('http://', '')], undefined);
    expect(bare).toMatchObject({ code: 2, stderr: `tenders: the base URL '${sb.url.replace('http://', '')}' has no scheme: did you mean ${sb.url}?\n` });
    const tls = await runCli(['count', '--retries', '0', '--base-url', sb.url.replace('http://', 'https://')], undefined);
    expect(tls).toMatchObject({ code: 1, stderr: `tenders: cannot get POST ${PATH} from ${sb.url.replace('http://', 'https://')}: TLS handshake failed: is the service plain http? try ${sb.url}\n` });
    const org = await runCli(['orgs', 'tenders', 'ORG-XXX-0001'], sb.url);
    expect(org.code).toBe(1);
    expect(org.stderr).toMatch(/^tenders: the service answered 404 to POST .*: is the organisation id right\? find ids with 'tenders orgs search --query NAME'\n$/);
  });
});
