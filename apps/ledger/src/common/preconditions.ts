import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Response } from 'express';
import { sha256Hex } from '@bursar/crypto';
import { LedgerErrors } from './ledger-errors';

/** The conditional headers of a write (RFC 9110 s.13). */
export interface Preconditions {
  ifMatch?: string;
  ifUnmodifiedSince?: string;
}

/** A mutable record's validators: a strong ETag of its representation and its last change. */
export interface Validators {
  etag: string;
  updatedAt: Date;
}

export const RequestPreconditions = createParamDecorator((_: unknown, ctx: ExecutionContext): Preconditions => {
  const { headers } = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
  return { ifMatch: headers['if-match'], ifUnmodifiedSince: headers['if-unmodified-since'] };
});

/** Strong ETag over the wire representation, so any visible change changes it. */
export function validatorsOf(representation: unknown, updatedAt: Date): Validators {
  return { etag: `"${sha256Hex(JSON.stringify(representation)).slice(0, 32)}"`, updatedAt };
}

/** `body` of a single-resource answer, with ETag and Last-Modified set for the client's next conditional write. */
export function withValidators<T>(res: Response, validators: Validators, body: T): T {
  res.setHeader('ETag', validators.etag);
  res.setHeader('Last-Modified', validators.updatedAt.toUTCString());
  return body;
}

/** How a conditional update documents itself. */
export const CONDITIONAL_UPDATE = 'Honours If-Match (ETag of GET) and If-Unmodified-Since: 409 precondition_failed when stale.';

function failed(message: string, header: string): never {
  throw LedgerErrors.error('precondition_failed', {
    message,
    hint: 'GET the resource again and retry with its current ETag',
    details: { header },
  });
}

/**
 * Refuses a write whose If-Match names no current ETag (`*` matches any) or whose
 * If-Unmodified-Since predates the last change (compared at whole seconds, the header's
 * precision). Call it with the row locked (SELECT ... FOR UPDATE) so the check and the write are one.
 * An unparseable If-Unmodified-Since is ignored, as RFC 9110 requires.
 */
export function assertPreconditions(pre: Preconditions, current: Validators): void {
  if (pre.ifMatch !== undefined) {
    const tags = pre.ifMatch.split(',').map((t) => t.trim().replace(/^W\//, ''));
    if (!tags.includes('*') && !tags.includes(current.etag)) failed('If-Match names no current version', 'If-Match');
    return;
  }
  if (pre.ifUnmodifiedSince !== undefined) {
    const since = Date.parse(pre.ifUnmodifiedSince);
    if (!Number.isNaN(since) && Math.floor(current.updatedAt.getTime() / 1000) * 1000 > since) {
      failed('The resource changed after If-Unmodified-Since', 'If-Unmodified-Since');
    }
  }
}
