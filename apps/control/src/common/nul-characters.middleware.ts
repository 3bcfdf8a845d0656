import { Module, MiddlewareConsumer, NestModule, RequestMethod } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '@bursar/errors';

/** True when any string in `value` (keys included) holds U+0000. Iterative: deep JSON cannot overflow the stack. */
export function holdsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (next.includes('\0')) return true;
    } else if (next && typeof next === 'object') {
      for (const [key, inner] of Object.entries(next)) {
        if (key.includes('\0')) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}

function decodedPath(req: Request): string {
  try {
    return decodeURIComponent(req.path);
  } catch {
    return req.path; // malformed escapes are the router's to refuse
  }
}

/**
 * Postgres cannot store U+0000 in text or jsonb, so a NUL anywhere in the path, query or body would
 * surface as a 500 from the first query that carries it. Refuse it up front as the 400 it is.
 */
export function rejectNulCharacters(req: Request, _res: Response, next: NextFunction): void {
  if (decodedPath(req).includes('\0') || holdsNul(req.query) || holdsNul(req.body)) {
    next(new ApiError(400, null, 'Text may not contain the NUL character (U+0000)'));
    return;
  }
  next();
}

@Module({})
export class NulCharactersModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(rejectNulCharacters).forRoutes({ path: '*path', method: RequestMethod.ALL });
  }
}
