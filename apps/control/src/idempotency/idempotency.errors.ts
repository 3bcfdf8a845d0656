import { ErrorCatalog } from '@bursar/errors';

export const IdempotencyErrors = new ErrorCatalog({
  idempotency_key_required: { status: 422, message: 'Send an Idempotency-Key header so a retry cannot authorize twice' },
  idempotency_conflict: {
    status: 409,
    message: 'A request with this idempotency key is still in flight; retry with the same key',
  },
});

/** The same key reused for a different request is refused with the same code (as Stripe does). */
export function reusedKey() {
  return IdempotencyErrors.error('idempotency_conflict', {
    message: 'This idempotency key was used for a different request; use a new key',
  });
}
