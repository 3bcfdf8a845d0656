import type { OpenAPIObject } from '@nestjs/swagger';
import { openApiOperations } from './openapi-operations';

type Schema = Record<string, unknown>;

const NULL = { type: 'null' };

/** Keys whose values are sample data, not schemas: a `nullable` in there is a value to keep. */
const DATA_KEYS = new Set(['example', 'examples', 'const', 'enum']);

/** The alternatives a composed schema (a reference, allOf, anyOf, oneOf) stands for, null aside. */
function alternativesOf(core: Schema): unknown[] {
  const keys = Object.keys(core);
  if (keys.length === 1 && Array.isArray(core.anyOf)) return core.anyOf;
  if (keys.length === 1 && Array.isArray(core.allOf) && core.allOf.length === 1) return core.allOf;
  return [core];
}

/** One schema that said `nullable: true` (the keyword already removed), rewritten with JSON Schema's null type. */
function allowNull(rest: Schema): Schema {
  if (Array.isArray(rest.enum) && !rest.enum.includes(null)) rest.enum = [...(rest.enum as unknown[]), null];
  const { $ref, allOf, anyOf, oneOf, type, ...siblings } = rest;
  const core = Object.fromEntries(Object.entries({ $ref, allOf, anyOf, oneOf }).filter(([, v]) => v !== undefined));
  if (Object.keys(core).length === 0) {
    if (typeof type === 'string') return { ...rest, type: [type, 'null'] };
    if (Array.isArray(type)) return { ...rest, type: type.includes('null') ? type : [...type, 'null'] };
    // No type named: any value, null included, was already allowed.
    return rest;
  }
  // A reference or composition states its own type (a sibling `type: object` would refuse null
  // again), so null is offered beside it: `anyOf: [<the schema>, {type: 'null'}]`.
  if (Array.isArray(oneOf) && Object.keys(core).length === 1) return { ...siblings, oneOf: [...oneOf, NULL] };
  return { ...siblings, anyOf: [...alternativesOf(core), NULL] };
}

function rewrite(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewrite);
  if (typeof value !== 'object' || value === null) return value;
  const out: Schema = {};
  let nullable = false;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'nullable' && typeof inner === 'boolean') nullable = inner;
    else out[key] = DATA_KEYS.has(key) ? inner : rewrite(inner);
  }
  return nullable ? allowNull(out) : out;
}

/**
 * A parameter's `examples` is a map of Example Objects; Nest copies a property's example list there,
 * where it belongs in the parameter's schema (JSON Schema's `examples` array).
 */
function moveParameterExamples(document: OpenAPIObject): void {
  for (const { op } of openApiOperations(document)) {
    for (const parameter of op.parameters ?? []) {
      if (!Array.isArray(parameter.examples)) continue;
      parameter.schema = { ...(parameter.schema as object | undefined), examples: parameter.examples };
      delete parameter.examples;
    }
  }
}

/**
 * Brings what @nestjs/swagger generates in line with the OpenAPI 3.1 the document declares. Its
 * schemas are JSON Schema 2020-12, which has no `nullable` (3.0's keyword, still written for
 * `nullable: true` properties): every such schema becomes a type list with `null`
 * (`{type: ['string', 'null']}`), or an `anyOf` with `{type: 'null'}` for a reference or a
 * composition. Applied to the whole generated document, so no route can miss it.
 */
export function toOpenApi31(document: OpenAPIObject): OpenAPIObject {
  const rewritten = rewrite(document) as OpenAPIObject;
  moveParameterExamples(rewritten);
  return rewritten;
}
