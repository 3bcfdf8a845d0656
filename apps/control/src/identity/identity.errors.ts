import { ErrorCatalog } from '@bursar/errors';

export const IdentityErrors = new ErrorCatalog({
  identity_token_required: { status: 401, message: 'An identity token is required: Authorization: Bearer <token>', hint: "Sign in and send the identity provider's access token as Authorization: Bearer <token>" },
  invalid_identity_token: { status: 401, message: 'The identity token is malformed, expired or untrusted', hint: "Sign in again for a fresh token from the configured identity provider; agent keys do not work here" },
  identity_not_configured: { status: 503, message: 'No identity provider is configured', hint: "Ask the operator to configure an identity provider (IDENTITY_ISSUER, and IDENTITY_SIGNIN_URL for password sign-in); retrying will not help" },
  identity_unavailable: { status: 503, message: 'The identity provider cannot be reached', hint: "Retry shortly; the identity provider did not answer" },
  mfa_required: { status: 401, message: 'A second factor is needed: finish at POST /v1/auth/verify_mfa', hint: "Complete sign-in at POST /v1/auth/verify_mfa with pending_authentication_token, authentication_challenge_id and the code" },
  email_verification_required: { status: 401, message: 'The email address is unverified: finish at POST /v1/auth/verify_email', hint: "Complete sign-in at POST /v1/auth/verify_email with pending_authentication_token and the emailed code" },
});
