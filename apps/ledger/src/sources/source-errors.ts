import { ErrorCatalog } from '@bursar/errors';

export const SourceErrors = new ErrorCatalog({
  already_exists: { status: 409, message: 'A source with this name exists in the ledger', hint: "Choose another name, or use the existing source (GET /ledger/v1/sources)" },
});
