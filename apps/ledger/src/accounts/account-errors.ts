import { ErrorCatalog } from '@bursar/errors';

export const AccountErrors = new ErrorCatalog({
  already_exists: { status: 409, message: 'An account with this id exists in the ledger', hint: "Choose another account id, or read the existing account with GET /ledger/v1/accounts/{id}" },
  account_balance_nonzero: { status: 409, message: 'The account still has a posted or pending balance', hint: "Move the balance to another account and settle or void pending holds before closing" },
});
