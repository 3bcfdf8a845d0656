/**
 * Hints for failures no module declared a code for: what the caller should change, in one sentence.
 * Coded failures take the hint their catalog declares; these cover the rest, so no envelope lacks one.
 */

const SOURCE_NOUN: Record<string, string> = { body: 'body field', query: 'query parameter', param: 'path parameter' };

/** Names every failing field with what it expects (at most a few; `details.fields` has them all). */
export function validationHint(fields: Record<string, string[]>, missing: readonly string[], source?: string): string {
  const noun = SOURCE_NOUN[source ?? ''] ?? 'field';
  const shown = Object.entries(fields).slice(0, 4);
  const parts = shown.map(([path, messages]) =>
    missing.includes(path) ? `add the required ${noun} \`${path}\`` : `fix the ${noun} \`${path}\` (${messages.join('; ')})`,
  );
  const more = Object.keys(fields).length - shown.length;
  if (more > 0) parts.push(`and ${more} more listed in details.fields`);
  if (parts.length === 0) return 'Check the request against the OpenAPI document and send it again';
  const text = parts.join(', ');
  return `${text[0].toUpperCase()}${text.slice(1)}, then send the request again`;
}

/** A body the JSON parser, the decompressor or the size limit refused. */
export function malformedBodyHint(type: string): string {
  switch (type) {
    case 'entity.too.large':
      return 'Keep the body under 1 MB; split a large batch into several requests';
    case 'encoding.failed':
      return 'Send the body uncompressed, or compress it with the algorithm the Content-Encoding header names';
    case 'charset.unsupported':
      return 'Encode the body as UTF-8 (Content-Type: application/json; charset=utf-8)';
    case 'encoding.unsupported':
      return 'Use Content-Encoding gzip, deflate or br, or none';
    default:
      return 'Send valid JSON with Content-Type: application/json (check quotes, commas and brackets)';
  }
}

export const UNUSABLE_INPUT_HINT = 'Remove NUL characters (U+0000) from text and keys, and nest JSON less deeply';
export const ROUTE_NOT_FOUND_HINT = 'Check the method and path against the OpenAPI document; paths carry the version prefix';
export const UNAVAILABLE_HINT = 'Retry the same request (with the same Idempotency-Key) after the seconds in Retry-After';
export const INTERNAL_HINT = 'Retry later; if it keeps failing, report the request id (X-Request-Id) to the operator';

/** The fallback for a plain HTTP status that carried no hint of its own. */
export function statusHint(status: number): string {
  switch (status) {
    case 400:
      return 'Check the request body and parameters against the OpenAPI document';
    case 401:
      return 'Send a valid credential as Authorization: Bearer <token>';
    case 402:
      return 'Upgrade the plan to use this operation';
    case 403:
      return 'Use a credential that is allowed to do this';
    case 404:
      return 'Check the identifier, and that the record belongs to the credential that asks for it';
    case 405:
      return 'Use one of the methods this path allows (see the OpenAPI document)';
    case 406:
      return 'Accept application/json';
    case 409:
      return 'Read the resource again and retry against its current state';
    case 413:
      return malformedBodyHint('entity.too.large');
    case 415:
      return 'Send the body as JSON with Content-Type: application/json';
    case 422:
      return 'The request is well formed but cannot be applied as it stands; change it as the message says';
    case 429:
      return 'Slow down and retry after the seconds in Retry-After';
    case 502:
    case 503:
    case 504:
      return UNAVAILABLE_HINT;
    default:
      return status >= 500 ? INTERNAL_HINT : 'Check the request against the OpenAPI document';
  }
}
