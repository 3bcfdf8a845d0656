import { ErrorCatalog } from '@bursar/errors';

export const IdentityErrors = new ErrorCatalog({
  identity_token_required: { status: 401, message: 'An identity token is required: Authorization: Bearer <token>' },
  invalid_identity_token: { status: 401, message: 'The identity token is malformed, expired or untrusted' },
  identity_not_configured: { status: 503, message: 'No identity provider is configured' },
  identity_unavailable: { status: 503, message: 'The identity provider cannot be reached' },
  mfa_required: { status: 401, message: 'A second factor is needed: finish at POST /v1/auth/verify_mfa' },
  email_verification_required: { status: 401, message: 'The email address is unverified: finish at POST /v1/auth/verify_email' },
});
