import type { FormatOptions, Formatter, FormatterState } from './formatter.js';

/** What a format can do; writers decide by these, never by a format's name. */
export interface FormatTraits {
  /**
   * `documents`: a row is a whole (nested) document as the service sent it,
   * which --columns projects; `columns`: a row is flat dot-path columns;
   * `tenders`: a row is read as a tender by its known fields (a calendar
   * event, a feed entry, an OCDS release), so a watch gives it the tender
   * itself with its change beside.
   */
  rows: 'documents' | 'columns' | 'tenders';
  /** Columns are fixed by the first page; fields later pages bring are reported as dropped (CSV). */
  fixedColumns: boolean;
  /**
   * `page`: a chunk per page as it arrives; `first-rows`: its layout waits
   * for a page's worth of rows (the table's widths); `end`: it is written at
   * the end (a format that must see every row, or is written in row groups).
   */
  streaming: 'page' | 'first-rows' | 'end';
  /** Bytes no terminal can show: refused on one (exit 2). */
  binary: boolean;
  /** An interrupted export to a file can continue from its last checkpoint (--resume). */
  resumable: boolean;
  /**
   * On a terminal: `json`/`text` are neutralised as a whole by createFormatter
   * (JSON escapes, or controls spelled out), `crlf-text` likewise between its
   * CRLF line ends; `self` cleans its own cells; `none` for a binary format,
   * never written to one.
   */
  terminal: 'json' | 'text' | 'crlf-text' | 'self' | 'none';
  /** Writes any records (count --by's partitions, a watch list), not only tenders. */
  anyRecords: boolean;
  /**
   * Made for a person to read (the table), not for a program: its columns fit
   * the terminal, and what a person is told beside it (the copy's age) or
   * drawn in it (count's bars) goes with it alone.
   */
  forPeople: boolean;
}

/** Builds a format's formatter; loaded only when the format is chosen (start-up time matters). */
export type FormatterFactory = (opts: FormatOptions, resume?: FormatterState) => Formatter;

/** One output format: one file under output/formats/, one line in output/format-registry.ts. */
export interface FormatDefinition<Name extends string = string> {
  /** What --format takes. */
  readonly name: Name;
  /** File name endings that imply it for -o (lower case, with the dot). */
  readonly extensions: readonly string[];
  /** One line for help and docs. */
  readonly description: string;
  readonly traits: FormatTraits;
  /** Flags of its own (`--remind` for ics): given with another format, they are a usage error. */
  readonly flags?: readonly string[];
  load(): Promise<FormatterFactory>;
}

/** Keeps the format's name a literal type, so the registry can derive the union of names. */
export function defineFormat<const Name extends string>(definition: FormatDefinition<Name>): FormatDefinition<Name> {
  return definition;
}
