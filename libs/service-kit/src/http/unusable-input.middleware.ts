import type { NextFunction, Request, Response } from 'express';
import { leafNotCanonical } from '@bursar/crypto';
import { UnusableInput } from '@bursar/errors';

/** Deeper JSON than any request needs; the validation pipe transforms recursively and would overflow the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * What makes a parsed query or body unusable: a string (or key) holding U+0000, which Postgres cannot
 * store in text or jsonb, nesting beyond MAX_JSON_DEPTH, or a value RFC 8785 cannot write (a lone
 * surrogate, Postgres cannot store it either; a number too large to be finite), which no request
 * hash could then cover. Iterative, so depth cannot hurt it.
 */
export function unusableInput(value: unknown): string | null {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length) {
    const [next, depth] = pending.pop() as [unknown, number];
    if (typeof next === 'string' && next.includes('\0')) return 'Text may not contain the NUL character (U+0000)';
    if (!next || typeof next !== 'object') {
      const problem = leafNotCanonical(next);
      if (problem) return problem;
      continue;
    }
    if (depth >= MAX_JSON_DEPTH) return `JSON may nest at most ${MAX_JSON_DEPTH} levels deep`;
    for (const [key, inner] of Object.entries(next)) {
      if (key.includes('\0')) return 'Text may not contain the NUL character (U+0000)';
      const problem = leafNotCanonical(key);
      if (problem) return problem;
      pending.push([inner, depth + 1]);
    }
  }
  return null;
}

function decodedPath(req: Request): string {
  try {
    return decodeURIComponent(req.path);
  } catch {
    return req.path; // malformed escapes are the router's to refuse
  }
}

/** Refuses such input up front as the 400 it is, instead of a 500 from whichever layer trips on it first. */
export function rejectUnusableInput(req: Request, _res: Response, next: NextFunction): void {
  const problem = decodedPath(req).includes('\0') ? 'Paths may not contain the NUL character (U+0000)' : (unusableInput(req.query) ?? unusableInput(req.body));
  next(problem ? new UnusableInput(problem) : undefined);
}
