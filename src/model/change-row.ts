/** The fields of a change record, in the order every format writes them (`tenders changes`, a served feed of changes). */
export const CHANGE_FIELDS = ['at', 'sync', 'id', 'kind', 'field', 'old', 'new'] as const;

/** A change of the history as the store gives it (store.ts ChangeRecord, which this floor cannot name). */
export interface StoredChange {
  at: string;
  sync: string;
  id: string;
  kind: string;
  field: string | null;
  old: unknown;
  new: unknown;
}

/** A change as the formats write it: `field` null unless changed; `old`/`new` left out where the field is absent. */
export function changeRow(change: StoredChange): Record<string, unknown> {
  const record: Record<string, unknown> = { at: change.at, sync: change.sync, id: change.id, kind: change.kind, field: change.field };
  if (change.old !== undefined) record.old = change.old;
  if (change.new !== undefined) record.new = change.new;
  return record;
}
