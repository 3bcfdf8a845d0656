import { ErrorCatalog } from '@bursar/errors';

export const BooksLogErrors = new ErrorCatalog({
  log_size_exceeded: {
    status: 422,
    message: 'The tree size asked for is larger than the sealed log',
    hint: "Ask for sizes no larger than the log's sealed size, which `details.sealed_size` gives (or a checkpoint's tree_size)",
  },
  checkpoint_unavailable: {
    status: 409,
    message: 'No checkpoint can be signed yet',
    hint: 'The log is empty or no signing key is active yet; write to the ledger, or retry after the key activation delay',
  },
});
