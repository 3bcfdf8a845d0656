import { ErrorCatalog } from '@bursar/errors';

export const IdempotencyErrors = new ErrorCatalog({
  missing_idempotency_key: { status: 422, message: 'This write needs an Idempotency-Key header', hint: "Add an Idempotency-Key header (1-255 of A-Z a-z 0-9 _ : . -), unique per logical write, reused on retries" },
  in_progress: { status: 409, message: 'A request with this idempotency key is still being applied', hint: "Wait a moment and retry with the same Idempotency-Key; the first request's answer is replayed" },
  already_exists: { status: 409, message: 'This idempotency key was already used for a different request', hint: "Use a new Idempotency-Key for a different request; reuse a key only to retry the same body" },
});
