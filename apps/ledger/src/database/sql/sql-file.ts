import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A file of this folder, for migrations: the build copies the .sql files next to the compiled
 * code, so the same relative path works from the sources and from dist/.
 */
export function sqlFile(name: string): string {
  return readFileSync(path.join(__dirname, name), 'utf8');
}
