import { ErrorCatalog } from '@bursar/errors';

export const ExternalTransactionErrors = new ErrorCatalog({
  invalid_state: { status: 409, message: 'The external transaction is in a state that forbids this operation', hint: "Read the external transaction again: the message names the status this operation needs" },
});
