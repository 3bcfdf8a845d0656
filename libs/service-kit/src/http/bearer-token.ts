import type { Request } from 'express';

/** RFC 6750 section 2.1: `Bearer` and a b64token (token68 characters). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The credential of `Authorization: Bearer <credential>`, or undefined when none is presented. */
export function bearerToken(req: Request): string | undefined {
  return BEARER.exec(req.headers.authorization ?? '')?.[1];
}
