import { ErrorCatalog } from '@bursar/errors';

export const AuditLogErrors = new ErrorCatalog({
  tree_size_out_of_range: {
    status: 422,
    message: 'The size asked for is larger than the audit log has sealed, or from_size is larger than to_size',
    hint: "Ask for sizes up to the log's size: checkpoints/latest gives a signed one, and from_size may not exceed to_size",
  },
  index_out_of_range: {
    status: 422,
    message: 'The index is not inside a tree of the given tree_size',
    hint: 'Ask for an index below tree_size; entries lists each entry with its index',
  },
  audit_log_empty: {
    status: 422,
    message: "The workspace's audit log has no entries yet, so there is nothing to sign",
    hint: 'Make a change in the workspace (any audited action) and sign again',
  },
  audit_log_signing_not_configured: {
    status: 503,
    message: 'Audit log checkpoints are not signed: cosigning is not configured',
    hint: 'Ask the operator to set COSIGN_ISSUER (its cosigning keys sign checkpoints, published at /.well-known/jwks.json); retrying will not help',
  },
});
