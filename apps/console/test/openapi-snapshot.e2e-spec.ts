import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ControlStack, startControlStack } from './console-stack';

const SNAPSHOT = path.join(__dirname, '../src/api/control-openapi.json');

/**
 * The console's client types come from a committed snapshot of control's OpenAPI document; this
 * keeps the snapshot honest. `pnpm console:openapi` rewrites it (and the types) when control changes
 * on purpose, and then `pnpm typecheck` shows which console code the change breaks.
 */
describe("console's snapshot of control's OpenAPI document", () => {
  let stack: ControlStack;
  beforeAll(async () => {
    stack = await startControlStack('openapi', 'http://127.0.0.1:1');
  }, 90_000);
  afterAll(() => stack?.stop());

  it('matches the running control service', async () => {
    const live = `${JSON.stringify(await (await fetch(`${stack.controlUrl}/control/v1/openapi.json`)).json(), null, 2)}\n`;
    if (process.env.CONSOLE_OPENAPI_REFRESH === '1') await writeFile(SNAPSHOT, live);
    // Received: the running service; expected: the snapshot. Differences mean `pnpm console:openapi`.
    expect(JSON.parse(live)).toEqual(JSON.parse(await readFile(SNAPSHOT, 'utf8')));
  });
});
