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
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const REGISTRY = 'src/commands/registry.ts';
const key = (path) => relative(ROOT, path).split(sep).join('/');
const abs = (k) => JSON.stringify(join(ROOT, k));

/**
 * Builds dist/cli.cjs and dist/run.cjs with esbuild options `options` (format, plugins, defines:
 * those of one bundle), and returns the sizes of the parts.
 */
export async function buildCli(options) {
  // The module graph, from one bundle of everything.
  const graph = (await build({ ...options, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.cjs', write: false, metafile: true })).metafile.inputs;
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
  const names = await build({ ...options, entryPoints: exposed, outdir: 'dist/names', format: 'esm', splitting: true, write: false, metafile: true, plugins: options.plugins });
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
    outfile: 'dist/cli.cjs',
    plugins: [across('run', rest), ...options.plugins],
  });
  // run.cjs: a function per module cli.cjs imports from it.
  const run = await build({
    ...options,
    stdin: { contents: `module.exports = {\n${[...roots].sort().map((k) => `${JSON.stringify(k)}: () => require(${abs(k)})`).join(',\n')}\n};`, resolveDir: ROOT, sourcefile: 'run-entry.js', loader: 'js' },
    outfile: 'dist/run.cjs',
    metafile: true,
    plugins: [across('cli', core), ...options.plugins],
  });
  // Every module of cli.cjs that run.cjs asks for is in __core.
  const asked = Object.values(run.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external && i.path.startsWith('./cli.cjs?')).map((i) => i.path.slice('./cli.cjs?'.length)));
  const missing = asked.filter((k) => !exposed.includes(k));
  if (missing.length > 0) throw new Error(`build: run.cjs imports ${missing.join(', ')}, which cli.cjs does not give`);
  for (const file of ['dist/cli.cjs', 'dist/run.cjs']) lazyExports(join(ROOT, file));
  return { core: core.size, rest: rest.size, exposed: exposed.length };
}

/**
 * esbuild fills the exports object of each module imported lazily at the bundle's top level, one getter
 * per export, before any module runs: objects and getters that every run made, whatever it imports (39 of
 * them were 1.5 M instructions of a dry run's 110 M). Each fill moves to the start of its module's init
 * function (run once, before anything reads the object): made by the runs that import the module. The
 * entry's own (module.exports) stays. The build fails if esbuild's output no longer has this shape.
 */
function lazyExports(file) {
  const code = readFileSync(file, 'utf8');
  const entry = /module\.exports=__toCommonJS\((\w+)\)/.exec(code)?.[1];
  const fills = new Map();
  const rest = code.replace(/__export\((\w+?_exports\d*),(\{[^{}]*\})\);/g, (call, object) => {
    if (object === entry) return call;
    fills.set(object.replace(/_exports(\d*)$/, '$1'), call);
    return '';
  });
  let moved = 0;
  const out = rest.replace(/([,; ]init_(\w+)=__esm\(\{"[^"]+"\(\)\{(?:"use strict";)?)/g, (head, _, name) => {
    const fill = fills.get(name);
    if (fill === undefined) return head;
    moved++;
    return head + fill;
  });
  if (moved !== fills.size) throw new Error(`build: moved ${moved} of ${fills.size} exports objects of ${file} into their modules' init functions`);
  // The entry's exports object is what bin/tenders.js reads: no copy of it marked as an ES module.
  writeFileSync(file, entry === undefined ? out : out.replace(`module.exports=__toCommonJS(${entry})`, `module.exports=${entry}`));
}
