/**
 * A saved query's name (a watch, a sync): a file name of its own, so no
 * separators and no hidden or relative names; up to 100 letters, digits,
 * '-', '_' and '.', not starting with '.'. The command line checks it before
 * anything runs, and the store again for any caller.
 */
export const SAVED_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;
