import { ErrorCatalog } from '@bursar/errors';

export const IdentityErrors = new ErrorCatalog({
  identity_token_required: { status: 401, message: 'An identity token is required: Authorization: Bearer <token>' },
  invalid_identity_token: { status: 401, message: 'The identity token is malformed, expired or untrusted' },
  identity_not_configured: { status: 503, message: 'No identity provider is configured' },
  identity_unavailable: { status: 503, message: 'The identity provider cannot be reached' },
});
