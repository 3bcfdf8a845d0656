import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ControlStack, startControlStack } from './console-stack';

const SNAPSHOT = path.join(__dirname, '../src/api/control-openapi.json');

/** The document without its prose: reworded descriptions do not change the typed client. */
const PROSE = new Set(['description', 'summary', 'example', 'examples']);
function shape(value: unknown, names = false): unknown {
  if (Array.isArray(value)) return value.map((v) => shape(v));
  if (value === null || typeof value !== 'object') return value;
  // Under `properties` the keys are field names (a field may be called `description`).
  const kept = Object.entries(value).filter(([k]) => names || !PROSE.has(k));
  return Object.fromEntries(kept.map(([k, v]) => [k, shape(v, !names && k === 'properties')]));
}

/**
 * The console's client types come from a committed snapshot of control's OpenAPI document; this
 * keeps the snapshot honest. `pnpm console:openapi` rewrites it (and the types) when control changes
 * on purpose, and then `pnpm typecheck` shows which console code the change breaks.
 */
describe("console's snapshot of control's OpenAPI document", () => {
  it('sees a changed shape, not changed prose', () => {
    const doc = { paths: { '/x': { get: { summary: 'a', responses: { 200: { description: 'b', content: { type: 'string' } } } } } } };
    const reworded = { paths: { '/x': { get: { summary: 'c', responses: { 200: { description: 'd', content: { type: 'string' } } } } } } };
    expect(shape(reworded)).toEqual(shape(doc));
    expect(shape({ ...doc, paths: { '/x': { post: {} } } })).not.toEqual(shape(doc));
    const field = (properties: object) => ({ type: 'object', properties });
    expect(shape(field({ description: { type: 'string' } }))).not.toEqual(shape(field({})));
  });

  let stack: ControlStack;
  beforeAll(async () => {
    stack = await startControlStack('openapi', 'http://127.0.0.1:1');
  }, 90_000);
  afterAll(() => stack?.stop());

  it('matches the running control service', async () => {
    const live = `${JSON.stringify(await (await fetch(`${stack.controlUrl}/control/v1/openapi.json`)).json(), null, 2)}\n`;
    if (process.env.CONSOLE_OPENAPI_REFRESH === '1') await writeFile(SNAPSHOT, live);
    // Received: the running service; expected: the snapshot. Differences mean `pnpm console:openapi`.
    expect(shape(JSON.parse(live))).toEqual(shape(JSON.parse(await readFile(SNAPSHOT, 'utf8'))));
  });
});
