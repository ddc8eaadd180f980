import type { IO } from '../io.js';
import { displayOptions } from '../output/terminal/display.js';
import { traitsOf } from '../output/format-registry.js';
import { createFormatter, joinChunks, sayAfterOutput } from '../output/formatter.js';
import type { Reporter } from '../output/terminal/reporter.js';
import type { FileSystem } from '../files/fs.js';
import { openOutput, resolveTarget } from '../files/target.js';
import type { OutputPlan } from './plan.js';

/** The rows of a --list (watches, syncs) in the format and target asked for; `columns` for formats of columns when --columns is not given. */
export async function writeList(
  rows: Record<string, unknown>[],
  columns: string[],
  output: OutputPlan,
  io: IO,
  signal: AbortSignal,
  fs: FileSystem,
  say: Reporter,
): Promise<void> {
  const target = await resolveTarget(output.file, false, fs);
  const out = await openOutput(target, { stdout: io.stdout, stdoutIsTTY: io.stdoutIsTTY, signal, fs, gzip: output.gzip });
  try {
    const { rows: shape, fixedColumns } = traitsOf(output.format);
    const formatter = await createFormatter(output.format, {
      // A format of fixed columns takes these; a table takes them as its defaults, so a narrow terminal hides some (--columns it never hides).
      columns: output.columns ?? (shape === 'columns' && fixedColumns ? columns : undefined),
      defaultColumns: columns.map((path, i) => ({ path, priority: columns.length - i })),
      allDefaults: true,
      header: output.header,
      headerStyle: output.headerStyle,
      excelSafe: output.excelSafe,
      ...displayOptions(io, target.kind === 'stdout'),
      terminal: out.terminal,
    });
    await out.write(joinChunks([formatter.page(rows), formatter.end()]));
    await out.finish();
    // A table that left columns out at this width says which.
    sayAfterOutput(formatter, say);
  } catch (err) {
    await out.abandon(false);
    throw err;
  }
}
