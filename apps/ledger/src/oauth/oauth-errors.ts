import { ErrorCatalog } from '@bursar/errors';

/** RFC 6749 §5.2 error codes of the token endpoint, with the contract's statuses. */
export const OauthErrors = new ErrorCatalog({
  invalid_request: { status: 422, message: 'The token request is malformed' },
  invalid_client: { status: 401, message: 'Client authentication failed' },
  invalid_grant: { status: 422, message: 'The grant or its parameters are invalid' },
  invalid_scope: { status: 422, message: 'The requested scope is not granted to this client' },
  unsupported_grant_type: { status: 422, message: 'Only the client_credentials grant is supported' },
});

export type OauthErrorCode = keyof typeof OauthErrors.specs;
