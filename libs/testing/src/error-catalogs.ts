import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCatalog, hintOf } from '@bursar/errors';

export interface DeclaredCode {
  file: string;
  code: string;
  status: number;
  message: string;
  /** The hint as a raise naming this field gets it (undefined: a raise naming none). */
  param?: string;
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
          for (const code of value.codes()) {
            const spec = value.specs[code];
            // A hint written from the raise must read well with and without a field named.
            for (const param of [undefined, 'amount']) {
              found.push({ file: path.slice(srcDir.length + 1), code, status: spec.status, message: spec.message, param, hint: hintOf(spec, { message: spec.message, param }) });
            }
          }
        }
      }
    }
  };
  walk(srcDir);
  return found;
}

/**
 * The checks every service's catalogs share: at least `minFiles` errors files (so the walk found
 * them), the `sample` codes among them, and each code with a message and a hint of its own.
 */
export function describeErrorCatalogs(service: string, srcDir: string, minFiles: number, sample: string[]): DeclaredCode[] {
  const codes = declaredErrorCodes(srcDir);
  describe(`${service} error catalogs`, () => {
    it('are found (every module declares its codes in an errors file)', () => {
      expect(new Set(codes.map((c) => c.file)).size).toBeGreaterThanOrEqual(minFiles);
      expect(codes.map((c) => c.code)).toEqual(expect.arrayContaining(sample));
    });

    it.each(codes.map((c) => [`${c.file} ${c.code}${c.param ? ` raised with param ${c.param}` : ''}`, c] as const))('%s has a message and a hint of its own', (_, c) => {
      expect(c.message.trim().length).toBeGreaterThan(10);
      expect(c.hint.trim().length).toBeGreaterThan(10);
      expect(c.hint).not.toBe(c.message);
      expect(c.status).toBeGreaterThanOrEqual(400);
    });
  });
  return codes;
}
