import { execFile } from 'node:child_process';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';

/**
 * The validator is ESM only and reads its schemas through `import.meta`, which jest's CommonJS
 * runtime cannot load; it runs in a plain Node process instead, the document on stdin.
 */
const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
let text = '';
for await (const chunk of process.stdin) text += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(text));
const problems = result.valid ? [] : Array.isArray(result.errors) ? result.errors.map((e) => JSON.stringify(e)) : [String(result.errors)];
if (validator.version !== '3.1') problems.push('validated as OpenAPI ' + validator.version + ', not 3.1');
try { validator.resolveRefs(); } catch (e) { problems.push('unresolvable $ref: ' + e.message); }
process.stdout.write(JSON.stringify(problems));
`;

function officialSchemaProblems(document: object): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '-e', VALIDATE],
      { cwd: join(__dirname, '..', '..', '..'), maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as string[])),
    );
    child.stdin?.end(JSON.stringify(document));
  });
}

/** Keywords OpenAPI 3.1 adds to JSON Schema 2020-12 (its base vocabulary); anything else unknown is an error. */
const OPENAPI_KEYWORDS = ['discriminator', 'xml', 'externalDocs', 'example'];

/** Paths inside `document` where OpenAPI 3.0's `nullable` keyword is still used as one. */
export function nullableKeywords(document: unknown, path = '#'): string[] {
  if (typeof document !== 'object' || document === null) return [];
  const here = typeof (document as { nullable?: unknown }).nullable === 'boolean' ? [path] : [];
  const inner = Object.entries(document).flatMap(([key, value]) =>
    ['example', 'examples', 'const', 'enum'].includes(key) ? [] : nullableKeywords(value, `${path}/${key}`),
  );
  return [...here, ...inner];
}

/**
 * Every way `document` is not a valid OpenAPI 3.1 document, as readable lines (none when valid):
 * the document against the official 3.1 schema (a maintained validator, which also resolves every
 * `$ref`), then each component schema compiled strictly as JSON Schema 2020-12, which the 3.1 schema
 * leaves unchecked: an unknown or misspelt keyword fails there. Ajv knows 3.0's `nullable` as a
 * keyword of its own, so that one is looked for separately.
 */
export async function openApi31Problems(document: Record<string, unknown>): Promise<string[]> {
  const problems = await officialSchemaProblems(document);

  // Formats are OpenAPI's to extend (`int64`, `binary`); only their spelling as keywords is checked here.
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true, validateFormats: false });
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  const schemas = ((document.components as Record<string, unknown> | undefined)?.schemas ?? {}) as Record<string, object>;
  // Component references are written document-relative; each schema is registered under that address.
  for (const [name, schema] of Object.entries(schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
  for (const name of Object.keys(schemas)) {
    try {
      ajv.getSchema(`#/components/schemas/${name}`);
    } catch (e) {
      problems.push(`components.schemas.${name}: ${(e as Error).message}`);
    }
  }
  problems.push(...nullableKeywords(document).map((p) => `nullable keyword at ${p}`));
  return problems;
}
