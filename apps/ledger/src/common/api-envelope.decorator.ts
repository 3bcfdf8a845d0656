import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath, OpenAPIObject } from '@nestjs/swagger';

type Schema = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string];

/**
 * Documents a success response in the ledger envelope around `model`: `{data, livemode,
 * request_id}`, or the list form `{object: "list", data[], has_more, next_cursor, total?, ...}`.
 */
export function ApiEnveloped(model: Type<unknown>, options: { status?: number; list?: boolean; description?: string; headers?: Record<string, object> } = {},) {
  const ref = { $ref: getSchemaPath(model) };
  const list: Record<string, Schema> = {
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: ref },
    has_more: { type: 'boolean' },
    next_cursor: { type: 'string', nullable: true, description: 'Pass back as cursor for the next page' },
    total: { type: 'integer', description: 'Only with include_total=true' },
  };
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: options.status ?? 200,
      description: options.description ?? (options.list ? 'A page of results' : 'The resource'),
      ...(options.headers && { headers: options.headers }),
      schema: {
        type: 'object',
        required: ['data', 'livemode', 'request_id', ...(options.list ? ['object', 'has_more', 'next_cursor'] : [])],
        properties: {
          ...(options.list ? list : { data: ref }),
          livemode: { type: 'boolean' },
          request_id: { type: 'string' },
        },
      },
    }),
  );
}
