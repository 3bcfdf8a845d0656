import request from 'supertest';
import type { LedgerTestApp } from './ledger-test-app';

/** supertest calls under /ledger/v1 carrying `token` as the bearer. */
export function ledgerApi(t: LedgerTestApp, token: string) {
  const server = () => t.app.getHttpServer();
  const auth = (req: request.Test) => req.set('Authorization', `Bearer ${token}`);
  return {
    get: (path: string) => auth(request(server()).get(`/ledger/v1${path}`)),
    post: (path: string, body?: object) => auth(request(server()).post(`/ledger/v1${path}`)).send(body),
    patch: (path: string, body?: object) => auth(request(server()).patch(`/ledger/v1${path}`)).send(body),
    delete: (path: string) => auth(request(server()).delete(`/ledger/v1${path}`)),
  };
}
