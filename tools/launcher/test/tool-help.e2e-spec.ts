import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every `pnpm` command that takes arguments answers `--help` and `-h` with its usage and exits 0
 * at once: a campaign or a benchmark takes minutes and prints its own lines first, so a quick exit
 * with only the usage on stdout means nothing was started.
 */
const root = path.resolve(__dirname, '../../..');
const scripts = Object.keys(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>);
const tools = scripts.filter((s) => /^(chaos|fuzz|bench:)/.test(s));
const admins = ['ledger:admin', 'control:admin'];
/** Starting Node and compiling a tool's imports: a few seconds on a busy machine, far below any run. */
const QUICK_MS = 30_000;

function pnpm(args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile('pnpm', ['-s', ...args], { cwd: root, timeout: 2 * QUICK_MS }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

describe('--help of every pnpm command that takes arguments', () => {
  it('covers chaos, fuzz and every bench', () => {
    expect(tools).toEqual(expect.arrayContaining(['chaos', 'fuzz', 'bench:ledger', 'bench:control', 'bench:webhooks']));
  });

  it.each([...tools.map((script) => [script, '--help']), ['chaos', '-h']])('pnpm %s %s prints its usage and starts nothing', async (script, flag) => {
    const run = await pnpm([script, flag]);
    const command = script.replace(/:short$/, '');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(new RegExp(`^usage: pnpm ${command} \\[--help\\]\n`));
    expect(run.stdout).toContain('Settings (environment variables):');
    expect(run.ms).toBeLessThan(QUICK_MS);
  }, 2 * QUICK_MS);

  it('refuses any other argument with the usage, before starting anything', async () => {
    const run = await pnpm(['chaos', '--replicas=2']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('pnpm chaos takes no arguments (got --replicas=2)');
    expect(run.stderr).toContain('CHAOS_REPLICAS');
  }, 2 * QUICK_MS);

  it.each([...admins.map((script) => [script, '--help']), ['control:admin', '-h']])('pnpm %s %s prints every command as JSON', async (script, flag) => {
    const run = await pnpm([script, flag]);
    expect(run.code).toBe(0);
    const usage = (JSON.parse(run.stdout) as { usage: string[] }).usage;
    expect(usage[0]).toBe(`pnpm ${script} <command> [options]`);
    expect(usage.length).toBeGreaterThan(2);
    expect(run.ms).toBeLessThan(QUICK_MS);
  }, 2 * QUICK_MS);
});
