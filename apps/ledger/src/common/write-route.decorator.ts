import { applyDecorators, Post } from '@nestjs/common';
import { RequireScope } from '../auth/require-scope.decorator';
import { Idempotent } from '../idempotency/idempotent.decorator';

/**
 * A retry-safe write at POST `path` needing ledger:write, documented by `docs`. They apply first, as
 * stacked decorators above these would, so a 200's description reads theirs before Idempotent's replay.
 */
export function WriteRoute(path: string, ...docs: (ClassDecorator | MethodDecorator | PropertyDecorator)[]) {
  return applyDecorators(...docs, Idempotent(), RequireScope('ledger:write'), Post(path));
}
