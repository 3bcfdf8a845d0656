import type { OpenAPIObject } from '@nestjs/swagger';

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, unknown>;
  content?: unknown;
}

export interface OpenApiOperation {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; [key: string]: unknown }[];
  responses: Record<string, OpenApiResponse>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** Every operation of a generated document with its path, for post-processing shared conventions. */
export function openApiOperations(document: OpenAPIObject): { path: string; method: string; op: OpenApiOperation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => ({ path, method, op: op as OpenApiOperation })),
  );
}

/** A JSON response whose body is the named component schema (an error envelope, say). */
export function schemaResponse(schema: string, description: string, headers: Record<string, unknown> = {}): OpenApiResponse {
  return { description, headers, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } };
}

/** Adds responses an operation shares with others; what a controller declared itself wins. */
export function addDefaultResponses(op: OpenApiOperation, defaults: Record<string, OpenApiResponse>): void {
  op.responses = { ...defaults, ...op.responses };
}

/** Registers component schemas without dropping the ones Nest generated. */
type Schemas = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>;

export function addSchemas(document: OpenAPIObject, schemas: Schemas): void {
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...schemas } };
}
