import { ArgumentsHost, Catch, ExceptionFilter, Inject } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { normalizeError } from '@bursar/errors';
import { LOGGER } from '@bursar/service-kit';
import { OauthErrorRenderer } from './oauth-error.renderer';

/** Renders the token endpoint's failures as RFC 6749 bodies. Bound to the OAuth controller only. */
@Catch()
export class OauthExceptionFilter implements ExceptionFilter {
  private readonly renderer = new OauthErrorRenderer();

  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    const error = normalizeError(exception);
    if (error.kind === 'internal') {
      this.logger.error({ err: error.cause, request_id: req.id }, 'unhandled exception at the token endpoint');
    }
    const { status, body, headers } = this.renderer.render(error);
    for (const [name, value] of Object.entries({ ...error.headers, ...headers })) res.setHeader(name, value);
    res.status(status).json(body);
  }
}
