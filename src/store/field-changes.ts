/**
 * The change engine of the local copy: which fields of a tender changed, with
 * their values before and after. Sync runs record its rows in `changes`; a
 * watch keeping its state in the store compares with it too.
 */

import { isObject, stringifyJson, type JsonObject } from '../model/exact-json.js';

/** One changed field: `undefined` for a side where the field is absent. */
export interface FieldChange {
  /** Dot path of the field ("deadline", "estimatedValue.amount"); keys are joined as they are. */
  path: string;
  old: unknown;
  new: unknown;
}

/**
 * The fields that differ between two versions of a tender, in the order of the
 * newer version's keys (then the removed ones). Objects are walked: a change
 * deep inside is named by its leaf. Anything else is compared whole as JSON
 * text (arrays, and "1" against 1, which differ): a field that turns from an
 * object into null or a string (or back) is one change at its own path with
 * both values whole. The top-level `id` is the tender's key, not a field.
 */
export function fieldChanges(before: JsonObject, after: JsonObject): FieldChange[] {
  const changes: FieldChange[] = [];
  compareObjects(before, after, '', changes, true);
  return changes;
}

function compareObjects(before: JsonObject, after: JsonObject, prefix: string, out: FieldChange[], top: boolean): void {
  for (const key of Object.keys(after)) {
    if (top && key === 'id') continue;
    compare(Object.hasOwn(before, key) ? before[key] : undefined, after[key], prefix + key, out, Object.hasOwn(before, key));
  }
  for (const key of Object.keys(before)) {
    if ((top && key === 'id') || Object.hasOwn(after, key)) continue;
    out.push({ path: prefix + key, old: before[key], new: undefined });
  }
}

function compare(before: unknown, after: unknown, path: string, out: FieldChange[], present: boolean): void {
  if (present && isObject(before) && isObject(after)) {
    compareObjects(before, after, `${path}.`, out, false);
  } else if (!present || stringifyJson(before) !== stringifyJson(after)) {
    out.push({ path, old: present ? before : undefined, new: after });
  }
}
