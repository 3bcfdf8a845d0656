import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { catchError, from, mergeMap, Observable, of, switchMap } from 'rxjs';
import { LedgerErrors } from '../common/ledger-errors';
import { IdempotencyErrors } from './idempotency-errors';
import { KeyScope } from './idempotency.repository';
import { fingerprintOf, IdempotencyService, PendingKey } from './idempotency.service';

export const IDEMPOTENCY_OPTIONS = Symbol('idempotencyOptions');
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY_PATTERN = /^[A-Za-z0-9_:.-]{1,255}$/;

export interface IdempotentOptions {
  /** Whether a request without a key is refused (422 `missing_idempotency_key`); a function decides per request. */
  required?: boolean | ((req: Request) => boolean);
  /**
   * The handler stores the key itself, in the database transaction of its write
   * (IdempotencyService.completedKey, read through @PendingIdempotency()), instead of the
   * interceptor claiming it before and completing it after in transactions of their own.
   */
  inWrite?: boolean;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The request's idempotency key (header or body), once @Idempotent has read it. */
      idempotencyKey?: string;
      /** Set by @Idempotent({ inWrite: true }) when the request carries a key. */
      pendingIdempotency?: PendingKey;
    }
  }
}

/** Header wins over the body's `idempotency_key`, which is removed so DTOs need not declare it. */
function takeKey(req: Request): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  const fromBody = body && typeof body === 'object' ? body.idempotency_key : undefined;
  if (body && typeof body === 'object') delete body.idempotency_key;
  const header = req.headers['idempotency-key'];
  const key = header ?? fromBody;
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw LedgerErrors.error('invalid_request', {
      message: 'Idempotency keys are 1-255 characters of A-Z a-z 0-9 _ : . -',
      param: header !== undefined ? IDEMPOTENCY_HEADER : 'idempotency_key',
    });
  }
  return key;
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const options = this.reflector.get<IdempotentOptions>(IDEMPOTENCY_OPTIONS, context.getHandler()) ?? {};
    const key = takeKey(req);
    if (key === undefined) {
      const required = typeof options.required === 'function' ? options.required(req) : options.required;
      if (required) throw IdempotencyErrors.error('missing_idempotency_key', { param: IDEMPOTENCY_HEADER });
      return next.handle();
    }
    req.idempotencyKey = key;
    const grant = req.grant;
    // @Idempotent sits behind @RequireScope, whose guard has run by now.
    if (!grant) throw new Error('@Idempotent() needs @RequireScope on the same route');
    const scope: KeyScope = {
      organizationId: grant.organizationId,
      mode: grant.mode,
      clientId: grant.clientId,
      route: `${req.method} ${req.route?.path ?? req.path}`,
      key,
    };
    const ledger = String(grant.ledgerId ?? req.headers['x-ledger-id'] ?? req.query?.ledger_id ?? '');
    const fingerprint = fingerprintOf({ path: req.path, ledger, query: req.query, body: req.body });
    if (options.inWrite) {
      req.pendingIdempotency = { scope, fingerprint };
      return next.handle();
    }

    return from(this.idempotency.claim(scope, fingerprint)).pipe(
      switchMap((outcome) => {
        if (outcome.kind === 'replay') {
          // The reference answers replays of creates (201) and accepted exports (202) with 200.
          res.status(outcome.status === 201 || outcome.status === 202 ? 200 : outcome.status);
          res.setHeader(REPLAYED_HEADER, 'true');
          return of(outcome.body);
        }
        return next.handle().pipe(
          mergeMap(async (body: unknown) => {
            await this.idempotency.complete(scope, res.statusCode, body);
            return body;
          }),
          // Only successes are kept: a failed request frees its key for a corrected retry.
          catchError(async (err: unknown) => {
            await this.idempotency.release(scope);
            throw err;
          }),
        );
      }),
    );
  }
}
