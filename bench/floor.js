#!/usr/bin/env node
// The floor: the smallest honest program doing the export's work. A sequential
// loop of undici requests, each page parsed, each tender written as one JSON line,
// one write per page. No prefetching: this is what a user would write first.
import { Pool } from 'undici';

const base = new URL(process.env.TENDERS_BASE_URL);
const pool = new Pool(base.origin);
const path = `${base.pathname.replace(/\/$/, '')}/api/v1/tenders/search`;
let cursor;
do {
  const body = JSON.stringify(cursor ? { limit: 100, cursor } : { limit: 100 });
  const res = await pool.request({
    path,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  const page = JSON.parse(text);
  let out = '';
  for (const tender of page.tenders) out += JSON.stringify(tender) + '\n';
  process.stdout.write(out);
  cursor = page.page.nextCursor;
} while (cursor);
await pool.close();
