import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { OrgQuery, TenderQuery } from './request.js';
import { BadRequest } from './response.js';

/** A keyset position: the sort value and id of the last result of a page. */
export interface Position {
  key: string | number;
  id: string;
}

/**
 * The identity of a query a cursor is bound to: operation, filters, sort field
 * and effective order. Key order and the order of filter values do not matter.
 */
export function queryFingerprint(binding: Record<string, unknown>): string {
  return createHash('sha256').update(canonical(binding)).digest('base64url').slice(0, 16);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Opaque, tamper-proof cursors: base64url(payload).base64url(HMAC-SHA256). */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(position: Position, fingerprint: string): string {
    const payload = Buffer.from(JSON.stringify({ k: position.key, i: position.id, f: fingerprint })).toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  /** The position, or undefined when the cursor is forged, corrupted or bound to another query. */
  decode(cursor: string, fingerprint: string): Position | undefined {
    const [payload, mac, extra] = cursor.split('.');
    if (!payload || !mac || extra !== undefined) return undefined;
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const { k, i, f } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k: unknown; i: unknown; f: unknown };
      if (f !== fingerprint || typeof i !== 'string' || (typeof k !== 'string' && typeof k !== 'number')) return undefined;
      return { key: k, id: i };
    } catch {
      return undefined;
    }
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 22);
  }
}

/** What a tender search's cursor is bound to (spec 3.3): the operation, its organisation, filters, sort and order. */
export function tenderFingerprint(q: TenderQuery, orgId: string | undefined, extra: Record<string, unknown> = q.extra): string {
  return queryFingerprint({ op: 'tenders', orgId, sortBy: q.sortBy, sortOrder: q.sortOrder, ...q.filters, ...extra });
}

export function orgFingerprint(q: OrgQuery): string {
  return queryFingerprint({ op: 'organisations', ...q.filters });
}

/** The position a request's cursor continues after (none without a cursor); `400 invalid cursor` for one not issued for this query. */
export function cursorPosition(codec: CursorCodec, cursor: string | undefined, fingerprint: string): Position | undefined {
  if (cursor === undefined) return undefined;
  const position = codec.decode(cursor, fingerprint);
  if (!position) throw new BadRequest('invalid cursor');
  return position;
}
