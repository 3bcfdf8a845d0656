import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function newestChange(dir: string, skip: Set<string>): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(full, skip) : statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Runs `command` in `cwd` unless `output` exists and is newer than every file under `sources`
 * (folders named in `skip` aside): the launcher and the tests build the console only when needed.
 */
export function buildIfStale(options: { sources: string; output: string; command: string[]; cwd: string; skip?: string[] }): boolean {
  const skip = new Set(options.skip ?? ['node_modules', 'test']);
  if (existsSync(options.output) && statSync(options.output).mtimeMs > newestChange(options.sources, skip)) return false;
  const [file, ...args] = options.command;
  execFileSync(file, args, { cwd: options.cwd, stdio: 'inherit' });
  return true;
}
