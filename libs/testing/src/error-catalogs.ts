import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCatalog } from '@bursar/errors';

export interface DeclaredCode {
  file: string;
  code: string;
  status: number;
  message: string;
  hint: string;
}

/**
 * Every code of every ErrorCatalog exported from a module's errors file (`*-errors.ts` or
 * `*.errors.ts`) under `srcDir`: found by walking the tree, so a catalog added later is covered too.
 */
export function declaredErrorCodes(srcDir: string): DeclaredCode[] {
  const found: DeclaredCode[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/[.-]errors\.ts$/.test(entry.name)) {
        const exported = require(path) as Record<string, unknown>;
        for (const value of Object.values(exported)) {
          if (!(value instanceof ErrorCatalog)) continue;
          for (const code of value.codes()) found.push({ file: path.slice(srcDir.length + 1), code, ...value.specs[code] });
        }
      }
    }
  };
  walk(srcDir);
  return found;
}
