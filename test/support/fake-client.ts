import type { Client } from '../../src/api/client.js';

export interface PostedRequest {
  path: string;
  body: Record<string, unknown>;
}

export type Responder = (
  request: PostedRequest,
  n: number,
  signal?: AbortSignal,
) => { status?: number; json: unknown } | Promise<{ status?: number; json: unknown }>;

/** A Client whose answers come from `respond`; it records every request it was given. */
export class FakeClient implements Client {
  readonly requests: PostedRequest[] = [];
  closed: 'gracefully' | 'forced' | undefined;

  constructor(private readonly respond: Responder) {}

  async post(path: string, body: string, signal?: AbortSignal): Promise<{ status: number; json: unknown }> {
    if (signal?.aborted) throw signal.reason;
    const request = { path, body: JSON.parse(body) as Record<string, unknown> };
    this.requests.push(request);
    const { status = 200, json } = await this.respond(request, this.requests.length, signal);
    return { status, json };
  }

  async close(force = false): Promise<void> {
    this.closed = force ? 'forced' : 'gracefully';
  }
}

/** Tenders T-1..T-n, served `limit` a page with opaque cursors "c<offset>", the total on the first page. */
export function pagedTenders(n: number, extra: (i: number) => Record<string, unknown> = () => ({})): Responder {
  const items = Array.from({ length: n }, (_, i) => ({ id: `T-${i + 1}`, title: `Tender ${i + 1}`, ...extra(i + 1) }));
  return ({ body }) => {
    const limit = (body.limit as number | undefined) ?? 25;
    const offset = typeof body.cursor === 'string' ? Number(body.cursor.slice(1)) : 0;
    const end = Math.min(offset + limit, n);
    return {
      json: {
        tenders: items.slice(offset, end),
        page: { nextCursor: end < n ? `c${end}` : null, total: body.cursor === undefined ? { count: n, capped: false } : null },
      },
    };
  };
}
