import { UsageError } from '../../errors.js';

/** A webhook to POST a watch's changes to, and how it may be printed. */
export interface Webhook {
  url: URL;
  /** scheme://host/… : the path, query and credentials hold its secrets (Slack's token is its path). */
  shown: string;
}

/** A --webhook (or TENDERS_WEBHOOK) URL: http(s) only; a UsageError never prints more than its host. */
export function parseWebhook(text: string, source = '--webhook'): Webhook {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const host = url ? `${url.protocol}//${url.host}` : 'a text that is not a URL';
    throw new UsageError(`${source} takes an http:// or https:// URL, not ${host}`);
  }
  return { url, shown: redactWebhook(url) };
}

export function redactWebhook(url: URL): string {
  return `${url.protocol}//${url.host}/…`;
}

/**
 * TENDERS_WEBHOOK: URLs separated by whitespace (a comma is a legal character
 * of a URL's query, so it does not separate them).
 */
export function webhooksFromEnv(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter((url) => url !== '');
}
