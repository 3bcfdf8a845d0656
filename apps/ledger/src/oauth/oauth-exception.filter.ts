import { ArgumentsHost, Catch, ExceptionFilter, Inject } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { normalizeError } from '@bursar/errors';
import { LOGGER } from '@bursar/service-kit';
import { OauthErrors } from './oauth-errors';

/**
 * The token endpoint answers RFC 6749 bodies (`{error, error_description}`), not the ledger
 * envelope, because OAuth client libraries parse exactly that. Bound to the OAuth controller only.
 */
@Catch()
export class OauthExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    const error = normalizeError(exception);
    if (error.kind === 'internal') {
      this.logger.error({ err: error.cause, request_id: req.id }, 'unhandled exception at the token endpoint');
    }
    // Codeless failures (a body the parser refused, say) are malformed requests in RFC 6749 terms.
    const known = error.code !== null && error.code in OauthErrors.specs ? error.code : null;
    const code = known ?? (error.kind === 'internal' ? 'server_error' : 'invalid_request');
    const status = known || error.kind === 'internal' ? error.status : OauthErrors.specs.invalid_request.status;
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
    res.status(status).json({
      error: code,
      error_description: error.kind === 'internal' ? 'Something went wrong on our side' : error.message,
      ...(error.hint !== undefined && { hint: error.hint }),
    });
  }
}
