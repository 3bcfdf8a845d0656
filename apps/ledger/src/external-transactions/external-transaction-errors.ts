import { ErrorCatalog } from '@bursar/errors';

export const ExternalTransactionErrors = new ErrorCatalog({
  invalid_state: { status: 409, message: 'The external transaction is in a state that forbids this operation' },
});
