import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Faults, type Sandbox } from '../../src/sandbox/server.js';
import { runCli } from '../support/cli.js';

/**
 * The exports of the sandbox's hostile data (escape sequences, quotes, line breaks,
 * formulas, bidi marks in titles; numbers a double cannot hold and prototype-named
 * keys; fields first seen after the first page) over a fixed seed, byte for byte as
 * the code before the CSV speed-up (issue 24) wrote them: SHA-256 and size of stdout,
 * and stderr whole. A change to any of these is a change users see; if it is meant,
 * say so and record the new digests (print them with TENDERS_PRINT_DIGESTS=1).
 */
const RECORDED = JSON.parse(readFileSync(new URL('./output-identity.digests.json', import.meta.url), 'utf8')) as Record<string, { sha256: string; bytes: number; stderr: string }>;

const CASES: { name: string; args: string[]; faults: Faults }[] = [
  { name: 'CSV', args: ['export', '-f', 'csv'], faults: {} },
  { name: 'CSV with exact numbers, prototype-named keys and fields first seen on page 3', args: ['export', '-f', 'csv'], faults: { exoticFields: true, driftAfter: 2 } },
  { name: 'CSV --excel-safe --header-style snake --no-header', args: ['export', '--excel-safe', '--header-style', 'snake', '--no-header'], faults: { exoticFields: true } },
  { name: 'CSV --excel-safe --header-style snake', args: ['export', '--excel-safe', '--header-style', 'snake'], faults: {} },
  { name: 'CSV --columns: objects as JSON, exact numbers, a column no tender has', args: ['export', '--columns', 'id,title,bigRef,exactAmount,precise,constructor,__proto__,estimatedValue,buyer.name,hasOwnProperty,toString,nope'], faults: { exoticFields: true, driftAfter: 1 } },
  { name: 'NDJSON', args: ['export', '-f', 'ndjson'], faults: { exoticFields: true, driftAfter: 2 } },
  { name: 'JSON --columns', args: ['export', '-f', 'json', '--columns', 'id,bigRef,estimatedValue.amount,constructor.name,__proto__'], faults: { exoticFields: true } },
];

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ size: 1500, seed: 7 });
});
afterAll(() => sb.close());

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

describe('exports of the hostile sandbox data are byte-identical to the recorded ones', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      sb.setFaults(c.faults);
      const r = await runCli(c.args, sb.url);
      const written = { sha256: digest(r.stdout), bytes: Buffer.byteLength(r.stdout), stderr: r.stderr };
      if (process.env.TENDERS_PRINT_DIGESTS) console.log(JSON.stringify({ [c.name]: written }));
      expect(r.code).toBe(0);
      expect(written).toEqual(RECORDED[c.name]);
    });
  }
});
