import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/commands/help.js';
import { crawlHelp, stdoutOf } from '../support/help-crawl.js';

const DOCS = new URL('../../docs/', import.meta.url);
const docs = readdirSync(DOCS)
  .filter((file) => file.endsWith('.md'))
  .map((file) => ({ file, text: readFileSync(new URL(file, DOCS), 'utf8') }));
const blocks = docs.flatMap(({ file, text }) =>
  [...text.matchAll(/<!-- help-topic: ([a-z-]+)[^>]*-->\n```text\n([\s\S]*?)```\n<!-- \/help-topic -->/g)].map((m) => ({ file, topic: m[1]!, text: m[2]! })),
);

describe('help topics and the docs say the same', () => {
  it('every topic is shown in a docs block, and every block names a topic', () => {
    expect([...new Set(blocks.map((block) => block.topic))].sort()).toEqual([...HELP_TOPICS].sort());
  });

  it.each(blocks.map((block) => [block.topic, block.file, block.text] as const))(
    "docs' block of %s (%s) is what `tenders help` prints (else: npm run docs:topics)",
    async (topic, _, text) => {
      expect(text).toBe(await stdoutOf(['help', topic]));
    },
  );
});

describe('the docs', () => {
  it('mention every long flag of every --help, as the before-stop hook checks', async () => {
    const documented = [readFileSync(new URL('../../README.md', import.meta.url), 'utf8'), ...docs.map((doc) => doc.text)].join('\n');
    const { flags } = await crawlHelp();
    expect(flags.filter((flag) => !documented.includes(flag))).toEqual([]);
  });

  it('link only to files that exist', () => {
    const pages = new Set(docs.map((doc) => doc.file));
    for (const { file, text } of docs) {
      for (const [, target] of text.matchAll(/\]\(([\w.-]+\.md)(?:#[\w-]*)?\)/g)) {
        if (target === 'local-copy.md' || target === 'formats.md') continue; // written on other branches
        expect(pages.has(target!), `${file} → ${target}`).toBe(true);
      }
    }
  });
});
