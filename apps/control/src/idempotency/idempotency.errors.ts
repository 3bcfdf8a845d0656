import { ErrorCatalog } from '@bursar/errors';

export const IdempotencyErrors = new ErrorCatalog({
  idempotency_key_required: { status: 422, message: 'Send an Idempotency-Key header so a retry cannot authorize twice', hint: "Add an Idempotency-Key header, unique per action and reused on its retries" },
  idempotency_conflict: {
    status: 409,
    message: 'A request with this idempotency key is still in flight; retry with the same key',
    hint: "Retry with the same key once the first request finishes; use a new key for a different request",
  },
});

/** The same key reused for a different request is refused with the same code (as Stripe does). */
export function reusedKey() {
  return IdempotencyErrors.error('idempotency_conflict', {
    message: 'This idempotency key was used for a different request; use a new key',
  });
}
