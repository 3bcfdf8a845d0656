import { ApiError, ErrorCatalog } from '@bursar/errors';

export const TransactionErrors = new ErrorCatalog({
  unbalanced: { status: 422, message: 'Debits do not equal credits in every currency' },
  currency_mismatch: { status: 422, message: "A posting's currency differs from its account's" },
  unknown_account: { status: 422, message: 'A posting references an account that does not exist' },
  insufficient_funds: { status: 422, message: 'The postings would take an account past its overdraft policy; nothing was written' },
  account_closed: { status: 409, message: 'A posting targets a closed account' },
  period_closed: { status: 409, message: 'value_date falls inside a closed period' },
  duplicate_external_ref: { status: 409, message: 'This external reference is already attached to a transaction' },
  precondition_failed: { status: 409, message: 'A condition of the transaction does not hold; nothing was written' },
  already_reversed: { status: 409, message: 'The transaction is already reversed' },
  invalid_state: { status: 409, message: 'The transaction is in a state that forbids this operation' },
  already_exists: { status: 409, message: 'A transaction with this idempotency key exists' },
  refund_currency_required: { status: 422, message: 'The original spans several currencies: say which one the amount is in' },
  partial_refund_exceeds_original: { status: 422, message: 'The refund and earlier refunds exceed the original amount' },
});

/** DELETE on a transaction: the contract's 405 with code invalid_request (not the usual 422). */
export function deleteRefused(id: string): ApiError {
  return new ApiError(405, 'invalid_request', 'Transactions cannot be deleted', {
    hint: `Correct it with POST /v1/transactions/${id}/reverse (or /refund for part of it): corrections are auditable transactions`,
  });
}
