import { ErrorCatalog } from '@bursar/errors';

export const StatementErrors = new ErrorCatalog({
  invalid_statement: {
    status: 422,
    message: 'The statement file could not be read',
    hint: (raise) => raise.message,
  },
});
