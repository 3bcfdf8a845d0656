import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export type ReferenceVerdict = 'ok' | 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_match';

/**
 * How a receiver written for the reference product checks a delivery (reference ledger s.11,
 * control s.9): it reads ONE header by its name, `t=<unix s>,v1=<hex>` with any number of v1,
 * HMAC-SHA256 of "<t>.<raw body>" under the endpoint secret compared in constant time, t within
 * 300 s. Its failure reasons are the reference SDK's.
 */
export function referenceWebhookVerdict(headers: IncomingHttpHeaders, headerName: string, body: string, secret: string): ReferenceVerdict {
  const header = headers[headerName.toLowerCase()];
  if (typeof header !== 'string' || header === '') return 'missing_header';
  const pairs = header.split(',').filter((p) => p.includes('=')).map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()]);
  const t = pairs.find(([k]) => k === 't')?.[1];
  const candidates = pairs.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!t || candidates.length === 0) return 'malformed_header';
  if (!Number.isFinite(Number(t)) || Math.abs(Math.floor(Date.now() / 1000) - Number(t)) > 300) return 'timestamp_out_of_tolerance';
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  return candidates.some((c) => c.length === expected.length && timingSafeEqual(Buffer.from(c), expected)) ? 'ok' : 'no_match';
}
