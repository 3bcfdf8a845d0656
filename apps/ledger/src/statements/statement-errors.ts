import { ErrorCatalog } from '@bursar/errors';

export const StatementErrors = new ErrorCatalog({
  invalid_statement: {
    status: 422,
    message: 'The statement file could not be read',
    // The message names the line (or XML path) and the field; the hint says what to do about it.
    hint: (raise) => `Correct ${raise.param ?? 'the file'} where the message points (${raise.message}) and send the file again; nothing was stored`,
  },
});
