import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';

/**
 * A stack trace whose frames in the built bundle (`dist/run.cjs:483:5017`,
 * minified) point into src/ instead (`src/run/walk.ts:120:5`), through the
 * source map the build wrote beside each file (FILE.map). Read only when a
 * stack is printed (--verbose, an unexpected error): start-up pays nothing.
 * A frame without a map, or outside what it maps, stays as it is.
 */
export function sourceStack(stack: string): string {
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (file: string) => {
    if (!maps.has(file)) {
      let map: SourceMap | undefined;
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
      } catch {
        map = undefined; // no map (a test run of src/, a file of node_modules): the frame as V8 wrote it
      }
      maps.set(file, map);
    }
    return maps.get(file);
  };
  return stack.replace(/([( ])(\/[^():\n]+\.c?js):(\d+):(\d+)/g, (frame, before: string, file: string, line: string, column: string) => {
    const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return frame;
    return `${before}${resolve(dirname(file), entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
