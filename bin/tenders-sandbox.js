#!/usr/bin/env node
import('../dist/sandbox/main.js').then(({ main }) => main(process.argv.slice(2)));
