import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** What @Idempotent left on the request, for a handler parameter. */
const fromRequest = <T>(read: (req: Request) => T | undefined) =>
  createParamDecorator((_: unknown, ctx: ExecutionContext): T | null => read(ctx.switchToHttp().getRequest<Request>()) ?? null);

/** The key an @Idempotent({ inWrite: true }) route must store with its write; null without a key. */
export const PendingIdempotency = fromRequest((req) => req.pendingIdempotency);

/**
 * The request's idempotency key as @Idempotent read it (header, else body), stored on the
 * transaction (unique per ledger) so a retry that races the idempotency interceptor, or outlives
 * its record, still cannot write twice.
 */
export const IdempotencyKeyHeader = fromRequest((req) => req.idempotencyKey);
