import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { PendingKey } from './idempotency.service';

/** The key an @Idempotent({ inWrite: true }) route must store with its write; null without a key. */
export const PendingIdempotency = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): PendingKey | null => ctx.switchToHttp().getRequest<Request>().pendingIdempotency ?? null,
);
