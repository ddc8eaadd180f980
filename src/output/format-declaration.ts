import type { Format } from './formatter.js';

/**
 * What a format declares about itself, beside its formatter class: the facts
 * the format registry (help, -o extensions, --resume, terminal checks) reads
 * without loading the formatter.
 */
export interface FormatDeclaration {
  name: Format;
  /** File extensions that imply it, lower-case with their dot (".ocds.json"). */
  extensions: readonly string[];
  description: string;
  traits: {
    /** Rows are the service's nested objects, or flat dot-path columns. */
    shape: 'nested' | 'flat';
    /** Flat: the columns are --columns, else the first page's fields. */
    columnsFromFirstPage: boolean;
    /** Written page by page as results arrive; else held (in bounded parts) until written. */
    streaming: boolean;
    binary: boolean;
    /** --resume can continue an interrupted file. */
    resumable: boolean;
    /** Its text may reach a terminal (neutralised there); false: refused on a terminal. */
    terminalSafe: boolean;
  };
}
