import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A reader of the .sql files in `dir`, for migrations: the build copies .sql files next to the
 * compiled code, so the same folder works from the sources and from dist/.
 */
export function sqlFiles(dir: string): (name: string) => string {
  return (name) => readFileSync(path.join(dir, name), 'utf8');
}
