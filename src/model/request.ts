/** A request a run sends first; --dry-run prints these and sends nothing. */
export interface FirstRequest {
  path: string;
  body: Record<string, unknown>;
}
