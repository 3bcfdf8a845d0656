import { ErrorCatalog } from '@bursar/errors';

export const AccountErrors = new ErrorCatalog({
  already_exists: { status: 409, message: 'An account with this id exists in the ledger' },
  account_balance_nonzero: { status: 409, message: 'The account still has a posted or pending balance' },
});
