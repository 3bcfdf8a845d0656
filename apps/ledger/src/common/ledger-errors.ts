import { ErrorCatalog } from '@bursar/errors';

/** Codes of the API conventions, raised by any module; feature modules declare their own beside them. */
export const LedgerErrors = new ErrorCatalog({
  invalid_request: {
    status: 422,
    message: 'The request is malformed or missing fields',
    // Raised all over with a precise message and the field at fault: the hint points at that field.
    hint: ({ message, param }) =>
      param
        ? `Change \`${param}\` as the message says (${message.replace(/\.$/, '')}), then send the request again`
        : 'Check the request against the OpenAPI document at /ledger/v1/openapi.json',
  },
  unauthorized: { status: 401, message: 'No valid access token was presented', hint: "Get an access token from POST /oauth/token (client_credentials) and send it as Authorization: Bearer <token>" },
  forbidden: { status: 403, message: 'The token is not permitted to do this', hint: "Use a client of the organization and mode that owns this resource" },
  not_found: { status: 404, message: 'No such resource', hint: "Check the id and the ledger (X-Ledger-Id): records of other ledgers, organizations or modes answer 404" },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this resource', hint: "Use a method this path allows; the OpenAPI document lists them" },
  rate_limited: { status: 429, message: 'Too many requests', hint: "Slow down and retry after the seconds in Retry-After; X-RateLimit-Remaining shows what is left" },
  precondition_failed: { status: 409, message: 'The resource changed since the version the request names', hint: "GET the resource for its current ETag, reapply the change and send it with that If-Match" },
  immutable_field: { status: 409, message: 'This field cannot change after creation', hint: "Leave this field out of the update; create a new resource to change it" },
  internal_error: { status: 500, message: 'Something went wrong on our side', hint: "Retry later; if it keeps failing, report the request_id to the operator" },
  unavailable: { status: 503, message: 'The service is briefly unavailable; retry after Retry-After seconds', hint: "Retry the same request (with the same Idempotency-Key) after the seconds in Retry-After" },
});

export type LedgerCommonCode = keyof typeof LedgerErrors.specs;
