#!/usr/bin/env node
// The floor: the smallest honest program doing the export's work. A sequential
// loop of undici requests, each page parsed, each tender written as one JSON line.
import { Pool } from 'undici';

const base = new URL(process.env.TENDERS_BASE_URL);
const pool = new Pool(base.origin);
let cursor;
do {
  const body = JSON.stringify(cursor ? { limit: 100, cursor } : { limit: 100 });
  const res = await pool.request({
    path: '/api/v1/tenders/search',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const page = await res.body.json();
  let out = '';
  for (const tender of page.tenders) out += JSON.stringify(tender) + '\n';
  process.stdout.write(out);
  cursor = page.page.nextCursor;
} while (cursor);
await pool.close();
