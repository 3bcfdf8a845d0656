import { ErrorCatalog } from '@bursar/errors';

/** Codes of the API conventions, raised by any module; feature modules declare their own beside them. */
export const LedgerErrors = new ErrorCatalog({
  invalid_request: { status: 422, message: 'The request is malformed or missing fields' },
  unauthorized: { status: 401, message: 'No valid access token was presented' },
  forbidden: { status: 403, message: 'The token is not permitted to do this' },
  not_found: { status: 404, message: 'No such resource' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this resource' },
  rate_limited: { status: 429, message: 'Too many requests' },
  precondition_failed: { status: 409, message: 'The resource changed since the version the request names' },
  immutable_field: { status: 409, message: 'This field cannot change after creation' },
  internal_error: { status: 500, message: 'Something went wrong on our side' },
  unavailable: { status: 503, message: 'The service is briefly unavailable; retry after Retry-After seconds' },
});

export type LedgerCommonCode = keyof typeof LedgerErrors.specs;
