// The CLI as two files (scripts/build.js calls buildCli).
//
// dist/cli.cjs holds what starting any command takes: every module src/cli.ts imports, and every
// command module (src/commands/registry.ts imports each lazily) with what it imports: commander,
// the flags, the plans, help, the dry runs' output. dist/run.cjs holds the rest, what running a
// command takes and starting it does not: every other module imported lazily (the walk, the HTTP
// client, the output formats, the local copy's stores, watch and sync, the completion scripts,
// the manual page) with what only they import. A dry run, a usage error or help reads, deserialises
// and runs the first alone: V8 builds no function of the second (docs/performance.md).
//
// Each module is in one file only, so that a class is one class: a module of run.cjs imports one of
// cli.cjs as require('./cli.cjs?src/errors.ts'), and one of cli.cjs imports one of run.cjs (always
// lazily) as require('./run.cjs?src/run/walk.ts'); bin/tenders.js answers both, from what cli.cjs
// exports as __core and run.cjs exports, each a table of functions that give a module's exports.
import { build } from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const REGISTRY = 'src/commands/registry.ts';
const key = (path) => relative(ROOT, path).split(sep).join('/');
const abs = (k) => JSON.stringify(join(ROOT, k));

/**
 * Builds dist/cli.cjs and dist/run.cjs with esbuild options `options` (format, plugins, defines:
 * those of one bundle), and returns the sizes of the parts.
 */
export async function buildCli(outDir, options) {
  // The module graph, from one bundle of everything.
  const graph = (await build({ ...options, entryPoints: ['src/cli.ts'], outfile: `${outDir}/cli.cjs`, write: false, metafile: true })).metafile.inputs;
  const imports = (m, kinds) => graph[m].imports.filter((i) => !i.external && kinds(i.kind)).map((i) => i.path);
  const closure = (roots, next) => {
    const seen = new Set();
    for (const todo = [...roots]; todo.length > 0; ) {
      const m = todo.pop();
      if (seen.has(m)) continue;
      seen.add(m);
      todo.push(...next(m));
    }
    return seen;
  };
  const staticImports = (m) => imports(m, (kind) => kind !== 'dynamic-import');
  const commands = imports(REGISTRY, (kind) => kind === 'dynamic-import');
  const eager = closure(['src/cli.ts'], staticImports);
  const core = closure(['src/cli.ts', ...commands], staticImports);
  const roots = new Set(Object.keys(graph).flatMap((m) => imports(m, (kind) => kind === 'dynamic-import').filter((p) => !core.has(p))));
  const rest = closure([...roots], (m) => imports(m, () => true).filter((p) => !core.has(p)));
  const exposed = [...new Set([...rest].flatMap((m) => imports(m, () => true).filter((p) => core.has(p))))].sort();
  // A package file of its own loads under the V8 flag bin/tenders.js sets first (--liftoff-only), and
  // run.cjs under none: so run.cjs must load before any of them, which holds while cli.cjs imports none.
  const vendorInCore = [...core].filter((m) => graph[m].imports.some((i) => i.external && i.path.startsWith('./vendor/')));
  if (vendorInCore.length > 0) throw new Error(`build: ${vendorInCore.join(', ')} import a package of dist/vendor/: move the import to a module loaded lazily`);

  // The names each module of cli.cjs that run.cjs imports exports (export * followed), from a bundle of each.
  const exportsOf = new Map();
  const names = await build({ ...options, entryPoints: exposed, outdir: `${outDir}/names`, format: 'esm', splitting: true, write: false, metafile: true, plugins: options.plugins });
  for (const output of Object.values(names.metafile.outputs)) if (output.entryPoint) exportsOf.set(output.entryPoint, output.exports);

  /** In one part, imports of modules of the other become require('./PART.cjs?KEY'). */
  const across = (part, other) => ({
    name: `into-${part}`,
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === across || args.kind === 'entry-point') return undefined;
        if (part === 'run' && args.kind !== 'dynamic-import') return undefined; // cli.cjs imports run.cjs lazily only
        const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: across });
        if (resolved.errors.length > 0 || resolved.external) return undefined;
        const k = key(resolved.path);
        return other.has(k) ? { path: `./${part}.cjs?${k}`, external: true } : undefined;
      });
    },
  });

  // cli.cjs: src/cli.ts, and __core: an eagerly evaluated module's exports through getters of its bindings (no
  // exports object made at start-up), a lazily evaluated one's by require (evaluated when run.cjs asks).
  const lines = [`export * from ${abs('src/cli.ts')};`];
  const table = exposed.map((k, i) => {
    if (!eager.has(k)) return `${JSON.stringify(k)}: () => require(${abs(k)})`;
    const names = exportsOf.get(k) ?? [];
    if (names.length > 0) lines.push(`import { ${names.map((n, j) => `${n} as m${i}_${j}`).join(', ')} } from ${abs(k)};`);
    return `${JSON.stringify(k)}: () => ({ ${names.map((n, j) => `get ${n}() { return m${i}_${j}; }`).join(', ')} })`;
  });
  lines.push(`export const __core = {\n${table.join(',\n')}\n};`);
  await build({
    ...options,
    stdin: { contents: lines.join('\n'), resolveDir: ROOT, sourcefile: 'cli-entry.js', loader: 'js' },
    outfile: `${outDir}/cli.cjs`,
    plugins: [across('run', rest), ...options.plugins],
  });
  // run.cjs: a function per module cli.cjs imports from it.
  const run = await build({
    ...options,
    stdin: { contents: `module.exports = {\n${[...roots].sort().map((k) => `${JSON.stringify(k)}: () => require(${abs(k)})`).join(',\n')}\n};`, resolveDir: ROOT, sourcefile: 'run-entry.js', loader: 'js' },
    outfile: `${outDir}/run.cjs`,
    metafile: true,
    plugins: [across('cli', core), ...options.plugins],
  });
  // Every module of cli.cjs that run.cjs asks for is in __core.
  const asked = Object.values(run.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external && i.path.startsWith('./cli.cjs?')).map((i) => i.path.slice('./cli.cjs?'.length)));
  const missing = asked.filter((k) => !exposed.includes(k));
  if (missing.length > 0) throw new Error(`build: run.cjs imports ${missing.join(', ')}, which cli.cjs does not give`);
  for (const file of ['cli.cjs', 'run.cjs']) lazyExports(join(ROOT, outDir, file));
  return { core: core.size, rest: rest.size, exposed: exposed.length };
}

/**
 * esbuild fills the exports object of each module imported lazily at the bundle's top level, one getter
 * per export, before any module runs: objects and getters that every run made, whatever it imports (39 of
 * them were 1.5 M instructions of a dry run's 110 M). Each fill moves to the start of its module's init
 * function (run once, before anything reads the object): made by the runs that import the module. The
 * entry's own (module.exports) stays. The build fails if esbuild's output no longer has this shape.
 * The file's source map (FILE.map) is moved along: its positions are those of the file as written.
 */
function lazyExports(file) {
  const code = readFileSync(file, 'utf8');
  const entry = /module\.exports=__toCommonJS\((\w+)\)/.exec(code)?.[1];
  /** What changes, at offsets of `code`: `remove` characters taken out there, `insert` put in. */
  const edits = [];
  const fills = new Map();
  for (const match of code.matchAll(/__export\((\w+?_exports\d*),(\{[^{}]*\})\);/g)) {
    if (match[1] === entry) continue;
    fills.set(match[1].replace(/_exports(\d*)$/, '$1'), match[0]);
    edits.push({ at: match.index, remove: match[0].length, insert: '' });
  }
  let moved = 0;
  for (const match of code.matchAll(/([,; ]init_(\w+)=__esm\(\{"[^"]+"\(\)\{(?:"use strict";)?)/g)) {
    const fill = fills.get(match[2]);
    if (fill === undefined) continue;
    moved++;
    edits.push({ at: match.index + match[0].length, remove: 0, insert: fill });
  }
  if (moved !== fills.size) throw new Error(`build: moved ${moved} of ${fills.size} exports objects of ${file} into their modules' init functions`);
  // The entry's exports object is what bin/tenders.js reads: no copy of it marked as an ES module.
  if (entry !== undefined) {
    const call = `module.exports=__toCommonJS(${entry})`;
    edits.push({ at: code.indexOf(call), remove: call.length, insert: `module.exports=${entry}` });
  }
  edits.sort((a, b) => a.at - b.at || a.remove - b.remove);
  let out = '';
  let from = 0;
  for (const edit of edits) {
    out += code.slice(from, edit.at) + edit.insert;
    from = edit.at + edit.remove;
  }
  out += code.slice(from);
  writeFileSync(file, out);
  if (existsSync(`${file}.map`)) shiftSourceMap(`${file}.map`, code, out, edits);
}

/**
 * Rewrites a source map made for `before` so that it maps `after`, which `edits` (sorted) made of it:
 * each generated position moves by what was removed and inserted before it; a position inside removed
 * text is dropped. (The map is read when a --verbose stack trace is printed: src/files/source-stack.ts.)
 */
function shiftSourceMap(mapFile, before, after, edits) {
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  const startsBefore = lineStarts(before);
  const startsAfter = lineStarts(after);
  const moved = [];
  decodeMappings(map.mappings).forEach((segments, line) => {
    for (const [column, ...rest] of segments) {
      let offset = startsBefore[line] + column;
      let delta = 0;
      let dropped = false;
      for (const edit of edits) {
        if (edit.at > offset) break;
        if (edit.remove > 0 && offset < edit.at + edit.remove) {
          dropped = true;
          break;
        }
        delta += edit.insert.length - edit.remove;
      }
      if (dropped) continue;
      offset += delta;
      let newLine = 0;
      for (let lo = 0, hi = startsAfter.length - 1; lo <= hi; ) {
        const mid = (lo + hi) >> 1;
        if (startsAfter[mid] <= offset) (newLine = mid), (lo = mid + 1);
        else hi = mid - 1;
      }
      (moved[newLine] ??= []).push([offset - startsAfter[newLine], ...rest]);
    }
  });
  for (const segments of moved) segments?.sort((a, b) => a[0] - b[0]);
  map.mappings = encodeMappings(Array.from({ length: startsAfter.length }, (_, i) => moved[i] ?? []));
  writeFileSync(mapFile, JSON.stringify(map));
}

function lineStarts(text) {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A source map's `mappings`, each line's segments with absolute values: [column, source, line, column, name?]. */
function decodeMappings(mappings) {
  const state = [0, 0, 0, 0, 0];
  return mappings.split(';').map((line) => {
    state[0] = 0;
    return line === ''
      ? []
      : line.split(',').map((segment) => {
          const values = [];
          for (let i = 0, value = 0, shift = 0; i < segment.length; i++) {
            const digit = BASE64.indexOf(segment[i]);
            value += (digit & 31) << shift;
            if (digit & 32) shift += 5;
            else {
              values.push(value & 1 ? -(value >>> 1) : value >>> 1);
              value = shift = 0;
            }
          }
          return values.map((v, j) => (state[j] += v));
        });
  });
}

function encodeMappings(lines) {
  const state = [0, 0, 0, 0, 0];
  const vlq = (n) => {
    let value = n < 0 ? (-n << 1) | 1 : n << 1;
    let text = '';
    do {
      let digit = value & 31;
      value >>>= 5;
      if (value > 0) digit |= 32;
      text += BASE64[digit];
    } while (value > 0);
    return text;
  };
  return lines
    .map((segments) => {
      state[0] = 0;
      return segments
        .map((values) =>
          values
            .map((v, j) => {
              const text = vlq(v - state[j]);
              state[j] = v;
              return text;
            })
            .join(''),
        )
        .join(',');
    })
    .join(';');
}
