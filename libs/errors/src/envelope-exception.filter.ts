import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { NormalizedError, normalizeError } from './normalize-error';

/** A body sent as something other than JSON reaches validation empty: say that, not just "field required". */
function withContentTypeHint(error: NormalizedError, req: Request): NormalizedError {
  const type = req.headers['content-type'];
  if (error.kind !== 'validation' || error.source !== 'body' || !type || /json|x-www-form-urlencoded/i.test(type)) return error;
  return { ...error, hint: `Send the body as JSON with Content-Type: application/json (this request said ${type.split(';')[0]})` };
}

/** Turns a normalized failure into a service's own envelope. */
export interface ErrorRenderer {
  render(error: NormalizedError, req: Request): { status: number; body: unknown; headers?: Record<string, string> };
}

/**
 * The one exception filter of a service: every exception, coded or not, is normalized here and
 * rendered by the service's renderer, so no route can answer outside the documented envelope.
 */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly renderer: ErrorRenderer) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const normalized = withContentTypeHint(normalizeError(exception), req);
    if (normalized.kind === 'unavailable') {
      this.logger.warn({ err: normalized.cause, request_id: req.id }, 'dependency unavailable; answered 503');
    } else if (normalized.kind === 'internal') {
      this.logger.error({ err: normalized.cause, request_id: req.id }, 'unhandled exception');
    }
    const { status, body, headers } = this.renderer.render(normalized, req);
    if (res.headersSent) return;
    for (const [name, value] of Object.entries({ ...normalized.headers, ...headers })) res.setHeader(name, value);
    res.status(status).json(body);
  }
}
