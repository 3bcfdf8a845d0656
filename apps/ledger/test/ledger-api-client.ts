import request from 'supertest';
import type { LedgerTestApp } from './ledger-test-app';

/** An app and a bearer token for it; read at each call, so a stack that opens later (see booksStack) serves. */
export interface LedgerSession {
  readonly t: LedgerTestApp;
  readonly token: string;
}

/** supertest calls under /ledger/v1 carrying the session's token as the bearer, without an Idempotency-Key. */
export function ledgerApi(session: LedgerSession) {
  const server = () => session.t.app.getHttpServer();
  const auth = (req: request.Test) => req.set('Authorization', `Bearer ${session.token}`);
  return {
    get: (path: string) => auth(request(server()).get(`/ledger/v1${path}`)),
    post: (path: string, body?: object) => auth(request(server()).post(`/ledger/v1${path}`)).send(body),
    patch: (path: string, body?: object) => auth(request(server()).patch(`/ledger/v1${path}`)).send(body),
    delete: (path: string) => auth(request(server()).delete(`/ledger/v1${path}`)),
  };
}
