import type { Request } from 'express';

/** The credential of `Authorization: Bearer <credential>`, or undefined when none is presented. */
export function bearerToken(req: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}
