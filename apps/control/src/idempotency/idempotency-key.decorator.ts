import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '@bursar/errors';
import { IdempotencyErrors } from './idempotency.errors';

const MAX_LENGTH = 255;

/** The request's `Idempotency-Key` header; 422 `idempotency_key_required` when absent or empty. */
export const IdempotencyKey = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const value = context.switchToHttp().getRequest<Request>().header('idempotency-key')?.trim();
  if (!value) throw IdempotencyErrors.error('idempotency_key_required');
  if (value.length > MAX_LENGTH) {
    throw new ApiError(400, null, `Idempotency-Key is at most ${MAX_LENGTH} characters`, {
      hint: 'Use a shorter key, unique per action: a UUID fits',
    });
  }
  return value;
});
