import { ErrorCatalog } from '@bursar/errors';

/** RFC 6749 §5.2 error codes of the token endpoint, with the contract's statuses. */
export const OauthErrors = new ErrorCatalog({
  invalid_request: { status: 422, message: 'The token request is malformed', hint: "POST form or JSON fields grant_type=client_credentials, client_id and client_secret (or HTTP Basic client credentials)" },
  invalid_client: { status: 401, message: 'Client authentication failed', hint: "Check client_id and client_secret (a rotated secret stops working after its 24-hour overlap) and that the client is enabled" },
  invalid_grant: { status: 422, message: 'The grant or its parameters are invalid', hint: "Send grant_type=client_credentials with no other grant parameters" },
  invalid_scope: { status: 422, message: 'The requested scope is not granted to this client', hint: "Ask only for scopes granted to this client (space separated), or omit scope to get all of them" },
  unsupported_grant_type: { status: 422, message: 'Only the client_credentials grant is supported', hint: "Use grant_type=client_credentials" },
});

export type OauthErrorCode = keyof typeof OauthErrors.specs;
