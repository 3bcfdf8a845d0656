import { ErrorRenderer, hintOf, NormalizedError, statusHint } from '@bursar/errors';
import { OauthErrors } from './oauth-errors';

export const TOKEN_PATH = '/oauth/token';

/**
 * RFC 6749 s.5.2 bodies (`{error, error_description, hint}`; the reference adds `hint`) for the token endpoint, which the contract
 * keeps out of the ledger envelope because OAuth client libraries parse exactly this shape.
 */
export class OauthErrorRenderer implements ErrorRenderer {
  render(error: NormalizedError) {
    // Codeless failures (a body the parser refused, say) are malformed requests in RFC 6749 terms.
    const known = error.code !== null && error.code in OauthErrors.specs ? error.code : null;
    const code = known ?? (error.kind === 'internal' ? 'server_error' : 'invalid_request');
    const status = known || error.kind === 'internal' ? error.status : OauthErrors.specs.invalid_request.status;
    return {
      status,
      headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
      body: {
        error: code,
        error_description: error.kind === 'internal' ? 'Something went wrong on our side' : error.message,
        hint: error.hint ?? (code === 'server_error' ? statusHint(500) : hintOf(OauthErrors.specs.invalid_request, error)),
      },
    };
  }
}
