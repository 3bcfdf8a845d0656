import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import pinoHttp from 'pino-http';
import { randomBytes } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';
/** Ids a caller may hand us: short, printable, no separators that break log parsing. */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

/**
 * Assigns every request its id (the caller's `X-Request-Id` when acceptable, else a new `req_` id),
 * echoes it on the response, and writes one JSON access-log line carrying it.
 */
export function requestContextMiddleware(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && ACCEPTED_REQUEST_ID.test(given) ? given : newRequestId();
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    // Probes would drown the access log.
    autoLogging: { ignore: (req) => ['/healthz', '/readyz', '/metrics'].includes(req.url ?? '') },
  });
}
