import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/**
 * The request's idempotency key as @Idempotent read it (header, else body), stored on the
 * transaction (unique per ledger) so a retry that races the idempotency interceptor, or outlives
 * its record, still cannot write twice.
 */
export const IdempotencyKeyHeader = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string | null => ctx.switchToHttp().getRequest<Request>().idempotencyKey ?? null,
);
