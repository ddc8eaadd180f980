#!/usr/bin/env node
// node bench/profile-summary.js [--top N] FILE.cpuprofile...: the top N functions by self
// time, and self time by file, averaged over the profiles given (several runs of one
// command smooth out sampling noise), to see where an export's time goes without a GUI.
// Make a profile with: node --cpu-prof --cpu-prof-dir=/tmp/prof bin/tenders.js export ...
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 25;
if (args.length === 0) {
  console.error('usage: node bench/profile-summary.js [--top N] FILE.cpuprofile...');
  process.exit(2);
}

const short = (url) => url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/(dist|src|bench)\//, '$1/');
const byFunction = new Map();
const byFile = new Map();
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us / args.length);
let totalUs = 0;
for (const file of args) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  // A sample's interval is self time of the node it landed in; builtins such as
  // JSON.parse have no node of their own and count towards their JS caller.
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    const { functionName, url, lineNumber } = frames.get(profile.samples[i]);
    const where = url ? `${short(url)}:${lineNumber + 1}` : '';
    add(byFunction, `${functionName || '(anonymous)'} ${where}`.trim(), us);
    add(byFile, url ? short(url) : `(${functionName})`, us);
    totalUs += us / args.length;
  }
}

const print = (title, map, n) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / totalUs).toFixed(1).padStart(5)} %  ${key}`);
  }
};
console.log(`${args.length} profile(s): ${(totalUs / 1000).toFixed(0)} ms sampled per run`);
print('self time by function, per run', byFunction, top);
print('self time by file, per run', byFile, 12);
