import { DocumentBuilder, OpenAPIObject } from '@nestjs/swagger';
import { addDefaultResponses, addSchemas, openApiOperations, schemaResponse } from '@bursar/service-kit';
import { LEDGER_ID_HEADER } from './ledgers/current-ledger.decorator';

export const LEDGER_OPENAPI_PATH = '/ledger/v1/openapi.json';

/** Routes that work above the ledger (reference s.1): no X-Ledger-Id. */
const LEDGERLESS = /^\/ledger\/v1\/(ledgers|organizations|oauth_clients|_meta)(\/|$)/;

const ERROR_SCHEMA = 'ErrorEnvelope';
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per second for this client and kind (read or write)', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left right now', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the allowance is full again', schema: { type: 'integer' } },
};

function errorResponse(description: string, headers: Record<string, unknown> = {}) {
  return schemaResponse(ERROR_SCHEMA, description, { ...RATE_LIMIT_HEADERS, ...headers });
}

export function describeLedgerApi(builder: DocumentBuilder): DocumentBuilder {
  return builder
    .setTitle('Bursar Ledger API')
    .setDescription(
      [
        'Double-entry ledger for accounting systems. Authenticate with an OAuth 2.0 client_credentials access token ' +
          'from POST /oauth/token. Every response carries X-Request-Id; failures use the error envelope ' +
          '{error: {code, message, hint, param, details, docs_url, request_id}, livemode, request_id}.',
        'Ledger selection: routes other than /ledgers, /organizations, /oauth_clients and /_meta work on one ledger: ' +
          "the token's ledger_id claim (pinned client), else the X-Ledger-Id header, else a ledger_id query parameter, " +
          "else the organization's oldest unarchived ledger of the token's mode. Another tenant's or mode's ledger is 404.",
        'Lists: cursor-paginated (opaque next_cursor, passed back verbatim with the same filters); limit 1-200, ' +
          'default 50 (posting lists 1-500, default 100); out of range is 422 invalid_request; total only with include_total=true. ' +
          'A tampered cursor, or one from another list or tenant, is 422 invalid_request (param cursor).',
        'Idempotency: write routes marked with Idempotency-Key take the header (or body idempotency_key; the header wins), ' +
          '1-255 of [A-Za-z0-9_:.-], scoped to client and route. A retry of the same request replays the stored response ' +
          '(201 and 202 become 200) with Idempotent-Replayed: true; while the first is running 409 in_progress; the key with ' +
          'another body 409 already_exists. Failed requests keep nothing. Keys are kept forever unless the operator sets a retention.',
        'Conditional writes: single-resource GETs return ETag and Last-Modified; PATCH honours If-Match and ' +
          'If-Unmodified-Since, answering 409 precondition_failed when the resource changed.',
        'Rate limits: per client, 100 reads/s and 20 writes/s by default, shared across replicas (Redis token bucket). ' +
          'Every authenticated response carries X-RateLimit-Limit/-Remaining/-Reset; excess is 429 rate_limited with ' +
          'Retry-After. If Redis is unreachable the limiter fails open (requests pass, a warning is logged and ' +
          'rate_limiter_unavailable_total counts them), so losing Redis never stops bookkeeping.',
        'External transactions: amounts are signed minor units (money in positive, out negative). Matching counts a ' +
          "posting signed the same way: a debit +amount, a credit -amount. POST /ledger/v1/inbound/sources/{token} takes no " +
          'bearer token: the URL token and the <brand>-Inbound-Signature HMAC authenticate it.',
        'Tenants: a suspended organization is read-only (writes 403 tenant_suspended); plan-gated operations answer ' +
          '402 plan_required (creating live-mode clients needs a paid plan). A database that is briefly unreachable ' +
          'answers 503 unavailable with Retry-After.',
      ].join('\n\n'),
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'oauth2');
}

/**
 * Adds what every authenticated operation shares, so controllers need not repeat it: the
 * X-Ledger-Id header on ledger-scoped routes, rate-limit headers, and the common error responses.
 */
export function finishLedgerApi(document: OpenAPIObject): OpenAPIObject {
  addSchemas(document, {
    [ERROR_SCHEMA]: {
      type: 'object',
      required: ['error', 'livemode', 'request_id'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message', 'hint', 'docs_url', 'request_id'],
          properties: {
            code: { type: 'string', description: 'Stable; never parse message' },
            message: { type: 'string' },
            hint: { type: 'string', description: 'What to change before trying again: the field and what it expects, the header to send' },
            param: { type: 'string', description: 'Offending field or header' },
            details: { type: 'object', additionalProperties: true },
            docs_url: { type: 'string', format: 'uri' },
            request_id: { type: 'string' },
          },
        },
        livemode: { type: 'boolean' },
        request_id: { type: 'string' },
      },
    },
  });
  for (const { path, op } of openApiOperations(document)) {
    if (!op.security?.length) continue;
    if (!LEDGERLESS.test(path) && !op.parameters?.some((p) => p.in === 'header' && p.name === LEDGER_ID_HEADER)) {
      op.parameters = [
        ...(op.parameters ?? []),
        {
          name: LEDGER_ID_HEADER,
          in: 'header',
          required: false,
          description: 'Ledger to work on (uuid); ignored when the token is pinned to a ledger',
          schema: { type: 'string', format: 'uuid' },
        },
      ];
    }
    for (const response of Object.values(op.responses)) response.headers = { ...RATE_LIMIT_HEADERS, ...response.headers };
    addDefaultResponses(op, {
      '401': errorResponse('unauthorized: no valid access token'),
      '403': errorResponse('insufficient_scope (WWW-Authenticate names the scope), forbidden, or tenant_suspended'),
      '422': errorResponse('invalid_request: param and details.fields name the field'),
      '429': errorResponse('rate_limited', { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } }),
      '503': errorResponse('unavailable: a dependency is briefly out', { 'Retry-After': { schema: { type: 'integer' } } }),
    });
  }
  return document;
}
