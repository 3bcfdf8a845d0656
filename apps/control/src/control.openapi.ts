import { DocumentBuilder, OpenAPIObject } from '@nestjs/swagger';
import { addDefaultResponses, addSchemas, OpenApiResponse, openApiOperations, schemaResponse } from '@bursar/service-kit';

export const CONTROL_OPENAPI_PATH = '/control/v1/openapi.json';

const ERROR_SCHEMA = 'ControlError';
const RETRY_AFTER = { 'Retry-After': { description: 'Whole seconds to wait', schema: { type: 'integer' } } };

function errorResponse(description: string, headers: Record<string, unknown> = {}): OpenApiResponse {
  return schemaResponse(ERROR_SCHEMA, description, headers);
}

/** The failures every route of a credential kind shares (reference s.14, s.15). */
const SHARED_ERRORS = {
  '400': errorResponse('A required field is missing, the body is not JSON, or a query parameter is invalid (code null)'),
  '404': errorResponse('Not found, or not yours (code null)'),
  '422': errorResponse('A field is present but invalid, or the request is refused as it stands (code null unless listed)'),
  '429': errorResponse('rate_limited', RETRY_AFTER),
  '503': errorResponse('service_unavailable: the database is briefly out of reach; retry after Retry-After', RETRY_AFTER),
};
const AGENT_ERRORS = { ...SHARED_ERRORS, '401': errorResponse('runtime_key_required or invalid_runtime_key') };
const PERSON_ERRORS = {
  ...SHARED_ERRORS,
  '401': errorResponse('identity_token_required or invalid_identity_token'),
  '403': errorResponse('insufficient_role: the membership lacks the capability'),
  '503': errorResponse('service_unavailable (retry after Retry-After), or identity_not_configured: no identity provider is configured', RETRY_AFTER),
};

export function describeControlApi(builder: DocumentBuilder): DocumentBuilder {
  return builder
    .setTitle('Bursar Control API')
    .setDescription(
      'Spend control for AI agents. Agents call /control/v1/agent/* with their agent key; people call ' +
        '/control/v1/workspaces/{workspace_slug}/* with an identity token. Failures use the envelope ' +
        '{error: {message, code, hint, param?, details?}}; code is null for plain validation failures: 400 when a required field is ' +
        'missing, the body is unreadable or a query parameter is invalid, 422 when a field is present but wrong. ' +
        'Every response carries X-Request-Id; rate-limited routes carry X-RateLimit-Limit/-Remaining/-Reset.',
    )
    .setVersion('1.0.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Agent key (krt_test_... / krt_live_...)' }, 'agent_key')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OIDC identity token' }, 'identity_token');
}

/** Names each route's credential and the error responses that come with it, so controllers need not repeat them. */
export function finishControlApi(document: OpenAPIObject): OpenAPIObject {
  addSchemas(document, {
    [ERROR_SCHEMA]: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['message', 'code', 'hint'],
          properties: {
            message: { type: 'string', description: 'For humans; do not switch on it' },
            code: { type: 'string', nullable: true, description: 'Set only for the failures the API defines a code for' },
            hint: { type: 'string', description: 'What to change before trying again; for humans, like message' },
            param: { type: 'string', description: 'The offending request field, as a path (`rules[0].max_cents`, `name`), when one is to blame' },
            details: {
              type: 'object',
              description: 'Validation failures: `fields` maps each failing field path to its messages',
              properties: { fields: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
              additionalProperties: true,
            },
          },
          additionalProperties: true,
        },
      },
    },
  });
  for (const { path, op } of openApiOperations(document)) {
    if (path.startsWith('/control/v1/agent/')) {
      op.security ??= [{ agent_key: [] }];
      addDefaultResponses(op, AGENT_ERRORS);
    } else if (/^\/control\/v1\/(workspaces|invitations)(\/|$)|^\/v1\/account/.test(path)) {
      op.security ??= [{ identity_token: [] }];
      addDefaultResponses(op, PERSON_ERRORS);
    }
    // Controller-level route parameters are not reflected per operation; clients need them declared.
    if (path.includes('{workspace_slug}') && !op.parameters?.some((p) => 'name' in p && p.name === 'workspace_slug')) {
      op.parameters = [{ name: 'workspace_slug', in: 'path', required: true, schema: { type: 'string' } }, ...(op.parameters ?? [])];
    }
  }
  return document;
}
