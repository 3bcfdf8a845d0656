import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/**
 * The request's Idempotency-Key header, stored on the transaction (unique per ledger) so a retry
 * that races the idempotency interceptor, or outlives its record, still cannot write twice.
 */
export const IdempotencyKeyHeader = createParamDecorator((_: unknown, ctx: ExecutionContext): string | null => {
  const value = ctx.switchToHttp().getRequest<Request>().headers['idempotency-key'];
  return typeof value === 'string' ? value : null;
});
