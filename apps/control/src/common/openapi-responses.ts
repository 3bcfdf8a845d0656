import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';

/** `{data: <model>}` answered with `status`. */
export function ApiData(model: Type<unknown>, status = 200) {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({ status, schema: { type: 'object', required: ['data'], properties: { data: { $ref: getSchemaPath(model) } } } }),
  );
}

/** A page of `model`: `{data: [...], has_more, next_cursor}`; `cursorParam` names the query parameter next_cursor goes back in. */
export function ApiPage(model: Type<unknown>, cursorParam = 'starting_after') {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: 200,
      schema: {
        type: 'object',
        required: ['data', 'has_more', 'next_cursor'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(model) } },
          has_more: { type: 'boolean', description: 'True whenever the page filled to limit, even on the last page' },
          next_cursor: { type: 'string', nullable: true, description: `Pass back as ${cursorParam}` },
        },
      },
    }),
  );
}
