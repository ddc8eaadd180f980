#!/usr/bin/env node
import { main } from '../dist/sandbox/main.js';

main(process.argv.slice(2));
