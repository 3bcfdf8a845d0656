import type { OpenAPIObject } from '@nestjs/swagger';
import { toOpenApi31 } from './openapi-31';

const doc = (schemas: Record<string, unknown>, paths: Record<string, unknown> = {}) =>
  ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths, components: { schemas } }) as unknown as OpenAPIObject;

describe('toOpenApi31', () => {
  it('turns every nullable schema into one that admits null the JSON Schema way', () => {
    const out = toOpenApi31(
      doc({
        A: {
          type: 'object',
          properties: {
            s: { type: 'string', format: 'date-time', nullable: true },
            e: { type: 'string', enum: ['x', 'y'], nullable: true },
            r: { allOf: [{ $ref: '#/components/schemas/B' }], nullable: true, description: 'd' },
            bare: { $ref: '#/components/schemas/B', nullable: true },
            typed: { type: 'object', allOf: [{ $ref: '#/components/schemas/B' }], nullable: true },
            either: { oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
            many: { type: 'array', items: { type: 'integer', nullable: true } },
            plain: { type: 'string', nullable: false },
            untyped: { description: 'anything', nullable: true },
            nullable: { type: 'boolean' },
          },
          example: { nullable: true },
        },
        B: { type: 'object' },
      }),
    );
    expect(out.components?.schemas?.A).toEqual({
      type: 'object',
      properties: {
        s: { type: ['string', 'null'], format: 'date-time' },
        e: { type: ['string', 'null'], enum: ['x', 'y', null] },
        r: { anyOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }], description: 'd' },
        bare: { anyOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }] },
        typed: { anyOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }] },
        either: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
        many: { type: 'array', items: { type: ['integer', 'null'] } },
        plain: { type: 'string' },
        untyped: { description: 'anything' },
        nullable: { type: 'boolean' },
      },
      example: { nullable: true },
    });
  });

  it("moves a parameter's example list into its schema", () => {
    const parameter = { name: 'd', in: 'query', schema: { type: 'string' }, examples: ['2026-03-31'] };
    const out = toOpenApi31(doc({}, { '/x': { get: { parameters: [parameter], responses: {} } } }));
    expect((out.paths['/x'].get as { parameters: unknown[] }).parameters).toEqual([
      { name: 'd', in: 'query', schema: { type: 'string', examples: ['2026-03-31'] } },
    ]);
  });
});
