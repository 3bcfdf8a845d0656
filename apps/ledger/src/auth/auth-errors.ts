import { ErrorCatalog } from '@bursar/errors';

export const AuthErrors = new ErrorCatalog({
  insufficient_scope: { status: 403, message: 'The access token lacks the scope this operation needs', hint: "Use a client granted the scope WWW-Authenticate names, or request a token with that scope" },
  /** Step-up operations (POST /tenants/me/anonymize) need a token issued within five minutes. */
  fresh_authentication_required: { status: 401, message: 'This operation needs an access token issued within the last five minutes', hint: "Request a new access token from POST /oauth/token and retry within five minutes" },
});
