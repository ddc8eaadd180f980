#!/usr/bin/env node
// Writes the text of each help topic (`tenders help NAME`, src/commands/topics/)
// into the docs block that shows it, between `<!-- help-topic: NAME ... -->` and
// `<!-- /help-topic -->`, so the docs and the binary say the same. Run after a
// build: `npm run docs:topics`; test/docs/help-topics.test.ts checks the blocks.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const BLOCK = /(<!-- help-topic: ([a-z-]+)[^>]*-->\n```text\n)[\s\S]*?(```\n<!-- \/help-topic -->)/g;
const env = { ...process.env };
delete env.COLUMNS; // the width of a pipe: 80 columns

const docs = new URL('../docs/', import.meta.url);
for (const name of readdirSync(docs).filter((file) => file.endsWith('.md'))) {
  const file = new URL(name, docs);
  const before = readFileSync(file, 'utf8');
  const after = before.replace(BLOCK, (_, open, topic, close) => {
    const r = spawnSync(process.execPath, [new URL('../bin/tenders.js', import.meta.url).pathname, 'help', topic], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tenders help ${topic}: ${r.stderr}`);
    return `${open}${r.stdout}${close}`;
  });
  if (after !== before) writeFileSync(file, after);
}
