import { mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';

function sameBytes(a: string, b: string): boolean {
  try {
    return statSync(a).size === statSync(b).size && readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

/**
 * Moves every file of `staging` to the same relative path under `target`, each by one rename (atomic
 * on one filesystem): a process loading `target` meanwhile reads a file either whole as it was or
 * whole as it is now, never half written. Files whose bytes are already there are left untouched
 * (an unchanged build changes nothing); files only `target` has stay. Returns the counts.
 */
export function publishBuild(staging: string, target: string): { replaced: number; unchanged: number } {
  const counts = { replaced: 0, unchanged: 0 };
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(staging, relative), { withFileTypes: true })) {
      const name = path.join(relative, entry.name);
      if (entry.isDirectory()) {
        walk(name);
        continue;
      }
      const [from, to] = [path.join(staging, name), path.join(target, name)];
      if (sameBytes(from, to)) {
        counts.unchanged++;
        continue;
      }
      mkdirSync(path.dirname(to), { recursive: true });
      renameSync(from, to);
      counts.replaced++;
    }
  };
  walk('');
  return counts;
}
