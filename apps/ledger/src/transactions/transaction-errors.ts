import { ApiError, ErrorCatalog } from '@bursar/errors';

export const TransactionErrors = new ErrorCatalog({
  unbalanced: { status: 422, message: 'Debits do not equal credits in every currency', hint: "Make the debits equal the credits in each currency; details name the difference" },
  currency_mismatch: { status: 422, message: "A posting's currency differs from its account's", hint: "Post each account in its own currency; convert with a pair of postings through an FX account" },
  unknown_account: { status: 422, message: 'A posting references an account that does not exist', hint: "Create the account first, or check the account id (ids are case-sensitive and scoped to the ledger)" },
  insufficient_funds: { status: 422, message: 'The postings would take an account past its overdraft policy; nothing was written', hint: "Fund the source account first, or post from an account whose overdraft policy allows it" },
  account_closed: { status: 409, message: 'A posting targets a closed account', hint: "Post to an open account; a closed account cannot be reopened" },
  period_closed: { status: 409, message: 'value_date falls inside a closed period', hint: "Use a value_date after the last closed period, or post a correction in the open period" },
  duplicate_external_ref: { status: 409, message: 'This external reference is already attached to a transaction', hint: "Look the transaction up by this external reference instead of attaching it again" },
  precondition_failed: { status: 409, message: 'A condition of the transaction does not hold; nothing was written', hint: "Read the balances again and send the transaction with conditions that hold now" },
  already_reversed: { status: 409, message: 'The transaction is already reversed', hint: "Nothing to do: the transaction was already reversed; read it to find the reversal" },
  invalid_state: { status: 409, message: 'The transaction is in a state that forbids this operation', hint: "Read the transaction to see its status; a reversed transaction cannot be committed" },
  already_exists: { status: 409, message: 'A transaction with this idempotency key exists', hint: "Replay with the same Idempotency-Key and the same body, or use a new key for a new transaction" },
  refund_currency_required: { status: 422, message: 'The original spans several currencies: say which one the amount is in', hint: "Add `currency` naming which of the original's currencies the refund amount is in" },
  partial_refund_exceeds_original: { status: 422, message: 'The refund and earlier refunds exceed the original amount', hint: "Refund at most what remains; details.remaining_by_currency says how much" },
});

/** DELETE on a transaction: the contract's 405 with code invalid_request (not the usual 422). */
export function deleteRefused(id: string): ApiError {
  return new ApiError(405, 'invalid_request', 'Transactions cannot be deleted', {
    hint: `Correct it with POST /ledger/v1/transactions/${id}/reverse (or /refund for part of it): corrections are auditable transactions`,
  });
}
