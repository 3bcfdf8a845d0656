import { HttpException } from '@nestjs/common';
import { ApiError, ApiErrorExtras } from './api-error';
import { INTERNAL_HINT, malformedBodyHint, ROUTE_NOT_FOUND_HINT, UNAVAILABLE_HINT, UNUSABLE_INPUT_HINT, validationHint } from './error-hints';

/** The common shape every exception is reduced to before a service renders its envelope. */
export interface NormalizedError extends ApiErrorExtras {
  status: number;
  code: string | null;
  message: string;
  /** Why it failed when no code says so: lets a renderer choose its own code for a plain status. */
  kind: 'coded' | 'validation' | 'malformed_body' | 'route_not_found' | 'http' | 'unavailable' | 'internal';
  /** The original exception when it was unexpected, for logging only. */
  cause?: unknown;
  /**
   * Validation only: a value that was present in the body but wrong, as opposed to an absent field or a
   * bad query or path parameter (some APIs answer 422 for the first, 400 for the others).
   */
  badBodyValue?: boolean;
  /** Validation only: which part of the request failed (`body`, `query`, `param`). */
  source?: string;
}

interface ValidationResponse {
  message?: string | string[];
  fields?: Record<string, string[]>;
}

/**
 * Errors raised by body-parser carry `status`/`type` instead of being HttpExceptions; a body that
 * fails to decompress (Content-Encoding gzip/deflate/br) comes as the zlib error with a client
 * status set and no `type`.
 */
function bodyParserError(e: unknown): { status: number; type: string } | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const { status, type, expose } = e as { status?: unknown; type?: unknown; expose?: unknown };
  if (typeof status !== 'number') return undefined;
  if (typeof type === 'string') return { status, type };
  return expose === true && status >= 400 && status < 500 ? { status, type: 'encoding.failed' } : undefined;
}

/** Seconds a client is told to wait when a dependency is briefly out. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/**
 * Postgres SQLSTATEs meaning "cannot serve now": shutdown, not accepting connections, too many; and
 * a transaction lost to a concurrent one (serialization failure, deadlock victim, lock timeout) that
 * the service's own retries could not place: the same request may succeed if sent again.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01', '55P03']);
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/**
 * pg-pool's acquisition timeout and pg's messages for a connection that dropped (or that dropped
 * before the query was sent: "Client has encountered a connection error and is not queryable")
 * carry no code.
 */
const UNAVAILABLE_MESSAGE = /timeout exceeded when trying to connect|Connection terminated|is not queryable/i;
/**
 * TypeORM's errors for using a query runner whose connection it already gave back: the services
 * only ever release a runner after awaiting its work, so it was released by the runner's own
 * reaction to its connection dropping mid-transaction.
 */
const RELEASED_RUNNER_ERRORS = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

/**
 * True when the failure is the database (or another dependency) being unreachable or overloaded,
 * not a bug: the request may succeed if retried. Looks through TypeORM's `driverError`, `cause`
 * and AggregateError's `errors` (Node reports each address it tried).
 */
export function isUnavailableError(e: unknown, depth = 0): boolean {
  if (typeof e !== 'object' || e === null || depth > 3) return false;
  const { name, code, message, driverError, cause, errors } = e as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08/.test(code))) {
    return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  if (typeof name === 'string' && RELEASED_RUNNER_ERRORS.has(name)) return true;
  const nested = [driverError, cause, ...(Array.isArray(errors) ? errors : [])];
  return nested.some((n) => n !== e && isUnavailableError(n, depth + 1));
}

export function normalizeError(exception: unknown): NormalizedError {
  if (exception instanceof ApiError) {
    return { status: exception.status, code: exception.code, message: exception.message, kind: 'coded', ...exception.extras };
  }
  if (exception instanceof ValidationFailed) {
    return {
      status: 400,
      code: null,
      message: exception.message,
      kind: 'validation',
      badBodyValue: exception.source === 'body' && Object.keys(exception.fields).some((path) => !exception.missing.includes(path)),
      param: Object.keys(exception.fields)[0],
      details: { fields: exception.fields },
      hint: validationHint(exception.fields, exception.missing, exception.source),
      ...(exception.source !== undefined && { source: exception.source }),
    };
  }
  if (exception instanceof UnusableInput) {
    return { status: 400, code: null, message: exception.message, kind: 'malformed_body', hint: UNUSABLE_INPUT_HINT };
  }
  // Nest 12's Express adapter hands body-parser's errors on wrapped in an HttpException (as `cause`).
  const parser = bodyParserError(exception) ?? (exception instanceof HttpException ? bodyParserError(exception.cause) : undefined);
  if (parser) {
    const message =
      parser.type === 'entity.too.large'
        ? 'Request body too large'
        : parser.type === 'encoding.failed'
          ? 'Request body does not match its Content-Encoding'
          : 'Request body is not valid JSON';
    return { status: parser.status, code: null, message, kind: 'malformed_body', hint: malformedBodyHint(parser.type) };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse() as ValidationResponse | string;
    const raw = typeof response === 'string' ? response : response.message;
    const message = Array.isArray(raw) ? raw.join('; ') : (raw ?? exception.message);
    // Nest raises NotFoundException("Cannot GET /x") when no route matches.
    const kind = status === 404 && /^Cannot [A-Z]+ /.test(message) ? 'route_not_found' : 'http';
    if (kind === 'route_not_found') return { status, code: null, message: 'No such route', kind, hint: ROUTE_NOT_FOUND_HINT };
    return { status, code: null, message, kind };
  }
  if (isUnavailableError(exception)) {
    return {
      status: 503,
      code: null,
      message: 'The service is briefly unavailable; retry shortly',
      kind: 'unavailable',
      headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      hint: UNAVAILABLE_HINT,
      cause: exception,
    };
  }
  return { status: 500, code: null, message: 'Internal server error', kind: 'internal', hint: INTERNAL_HINT, cause: exception };
}

/** Raised by the validation pipe; `fields` maps each offending property path to its messages. */
/** A request no handler could use (NUL characters, absurd nesting): refused like an unreadable body. */
export class UnusableInput extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnusableInput';
  }
}

export class ValidationFailed extends Error {
  constructor(
    readonly fields: Record<string, string[]>,
    /** Paths of the failing fields that were absent rather than wrong. */
    readonly missing: string[] = [],
  ) {
    const [first] = Object.entries(fields);
    super(first ? `${first[0]}: ${first[1][0]}` : 'Invalid request');
    this.name = 'ValidationFailed';
  }

  /** Which part of the request failed (`body`, `query`, `param`, `custom`), when the pipe knows. */
  source?: string;
}
