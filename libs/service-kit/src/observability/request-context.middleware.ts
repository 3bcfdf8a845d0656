import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { pooledRandomBytes } from '@bursar/crypto';

declare module 'http' {
  interface IncomingMessage {
    /** The request id requestContextMiddleware assigned. */
    id: string;
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';
/** Ids a caller may hand us: short, printable, no separators that break log parsing. */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Probes would drown the access log. */
const UNLOGGED = new Set(['/healthz', '/readyz', '/metrics']);

function newRequestId(): string {
  return `req_${pooledRandomBytes(12).toString('hex')}`;
}

/**
 * Assigns every request its id (the caller's `X-Request-Id` when acceptable, else a new `req_` id),
 * echoes it on the response, and writes one JSON access-log line carrying it. Written by hand
 * rather than with pino-http: no child logger or serializer runs per request, and nothing at all
 * is attached when the log level would drop the line anyway.
 */
export function requestContextMiddleware(logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && ACCEPTED_REQUEST_ID.test(given) ? given : newRequestId();
    req.id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    if (logger.isLevelEnabled('error') && !UNLOGGED.has(req.url ?? '')) {
      const started = performance.now();
      const { method, url } = req;
      res.once('close', () => {
        const line = { req: { id, method, url }, res: { statusCode: res.statusCode }, responseTime: Math.round(performance.now() - started) };
        if (!res.writableFinished) logger.warn(line, 'request aborted');
        else if (res.statusCode >= 500) logger.error(line, 'request errored');
        else logger.info(line, 'request completed');
      });
    }
    next();
  };
}
