import { ErrorCatalog } from '@bursar/errors';

export const BillingErrors = new ErrorCatalog({
  billing_unavailable: { status: 503, message: 'The billing provider cannot be reached; retry after the seconds in Retry-After', hint: "Retry after the seconds in Retry-After; agent authorizations are not affected" },
  invalid_signature: { status: 401, message: 'The billing webhook signature did not verify', hint: "Sign the raw body with the webhook secret the billing provider shows, and send its signature header unchanged" },
});

/** Seconds a caller should wait before retrying a call the provider did not answer. */
export const BILLING_RETRY_AFTER_SECONDS = 30;

export function billingUnavailable(message?: string) {
  return BillingErrors.error('billing_unavailable', {
    ...(message ? { message } : {}),
    headers: { 'Retry-After': String(BILLING_RETRY_AFTER_SECONDS) },
  });
}

/** Billing writes while no provider is configured: the same code, but retrying will not help. */
export function billingNotConfigured() {
  return BillingErrors.error('billing_unavailable', {
    message: 'Billing is not configured on this deployment',
    hint: 'Ask the operator to set BILLING_API_URL and BILLING_API_KEY; retrying will not help',
  });
}
