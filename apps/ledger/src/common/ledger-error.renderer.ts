import type { Request } from 'express';
import { ErrorRenderer, hintOf, NormalizedError, statusHint } from '@bursar/errors';
import { LedgerCommonCode, LedgerErrors } from './ledger-errors';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by authentication from the client's mode; false before a token is read. */
      livemode?: boolean;
    }
  }
}

/** The code a codeless failure gets in the ledger's envelope, which always carries one. */
function codeFor(error: NormalizedError): LedgerCommonCode {
  if (error.kind === 'validation' || error.kind === 'malformed_body') return 'invalid_request';
  switch (error.status) {
    case 400:
    case 422:
      return 'invalid_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 429:
      return 'rate_limited';
    case 503:
      return 'unavailable';
    default:
      return 'internal_error';
  }
}

/**
 * Ledger envelope: `{error: {code, message, hint, param, details, docs_url, request_id}, livemode,
 * request_id}`. Unexpected failures never leak their message.
 */
export class LedgerErrorRenderer implements ErrorRenderer {
  constructor(private readonly docsUrl: string) {}

  render(error: NormalizedError, req: Request) {
    const code = error.code ?? codeFor(error);
    const common = error.code ? undefined : LedgerErrors.specs[code as LedgerCommonCode];
    const status = common?.status ?? error.status;
    const message = error.kind === 'internal' ? LedgerErrors.specs.internal_error.message : error.message;
    // Codeless failures keep their own hint (which field, which body problem) before the common code's.
    const hint = error.hint ?? (common ? hintOf(common, error) : statusHint(status));
    const requestId = String(req.id);
    return {
      status,
      body: {
        error: {
          code,
          message,
          hint,
          ...(error.param !== undefined && { param: error.param }),
          ...(error.details !== undefined && { details: error.details }),
          docs_url: `${this.docsUrl}#${code}`,
          request_id: requestId,
        },
        livemode: req.livemode ?? false,
        request_id: requestId,
      },
    };
  }
}
