import { ErrorCatalog } from '@bursar/errors';

export const IdempotencyErrors = new ErrorCatalog({
  missing_idempotency_key: { status: 422, message: 'This write needs an Idempotency-Key header' },
  in_progress: { status: 409, message: 'A request with this idempotency key is still being applied' },
  already_exists: { status: 409, message: 'This idempotency key was already used for a different request' },
});
