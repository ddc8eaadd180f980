/** A mistake in how the CLI was called: found before any request, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure while running (network, service, response, write): exit 1. */
export class RunError extends Error {
  override name = 'RunError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Reading a local copy that is not there yet ("run tenders sync first"): exit 1. */
export class NoCopyError extends RunError {
  override name = 'NoCopyError';
}

/** The run was stopped by a signal; exit 128 + signal number. */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
  /** `outcome`: what the interruption left, for the user (a sync: the copy is as it was). */
  constructor(
    readonly signal: NodeJS.Signals,
    outcome?: string,
  ) {
    super(`interrupted by ${signal}${outcome ? `: ${outcome}` : ''}`);
  }
}

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export function exitCodeFor(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1;
}

/** The exit code of what ended a run: 130/143 for a signal, 2 for a usage error, else 1. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof InterruptedError) return exitCodeFor(err.signal);
  return err instanceof UsageError ? EXIT.usage : EXIT.failure;
}
