import { RawNumber } from '../model/exact-json.js';

/**
 * Drops results already seen on the previous pages of a walk. When data shifts
 * while paging, a result reappears across a page boundary, not further back, so
 * remembering the ids of the last two pages keeps memory bounded.
 */
export type RecentIds = [unknown[], unknown[]];

export class BoundaryDeduper {
  #older: Set<unknown>;
  #last: Set<unknown>;
  dropped = 0;

  /** `recent`: what `recentIds()` returned in an earlier run (resume). */
  constructor(recent: RecentIds = [[], []]) {
    this.#older = new Set(recent[0]);
    this.#last = new Set(recent[1]);
  }

  /** The items of the next page that were not seen on the last two pages. */
  filter<T extends Record<string, unknown>>(items: readonly T[]): T[] {
    const page = new Set<unknown>();
    const kept: T[] = [];
    for (const item of items) {
      // A RawNumber id is a new object on every page: its digits are the id.
      const id = item.id instanceof RawNumber ? item.id.text : item.id;
      if (id === undefined || id === null) {
        kept.push(item);
      } else if (page.has(id) || this.#last.has(id) || this.#older.has(id)) {
        this.dropped++;
      } else {
        page.add(id);
        kept.push(item);
      }
    }
    this.#older = this.#last;
    this.#last = page;
    return kept;
  }

  /** The ids to remember across a resume: the page before last, and the last. */
  recentIds(): RecentIds {
    return [[...this.#older], [...this.#last]];
  }
}
