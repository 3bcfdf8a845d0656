import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { accessToken, LedgerFixtures, TestClient } from './ledger-fixtures';
import { LedgerTestApp, startLedgerTestApp } from './ledger-test-app';

export type Json = Record<string, unknown>;

/** One posting of a transaction body; `extra` adds fields such as `pending` or `tags`. */
export function leg(direction: 'debit' | 'credit', account: string, amount: string, currency = 'USD', extra: Json = {}): Json {
  return { account, amount, currency, direction, ...extra };
}

/** The ledger app for books tests: write rate limit out of the way; DEBUG_LOG=error shows server errors. */
export function startBooksApp(label: string): Promise<LedgerTestApp> {
  return startLedgerTestApp(label, { LEDGER_RATE_LIMIT_WRITES_PER_SECOND: '100000', LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' });
}

/** A client of the books routes (/ledger/v1) holding one access token; writes carry a fresh Idempotency-Key. */
export class BooksApi {
  constructor(
    private readonly t: LedgerTestApp,
    readonly token: string,
    readonly client: TestClient,
  ) {}

  /** A fresh organization, ledger and client with read, write and period_close scopes. */
  static async start(t: LedgerTestApp, scopes = ['ledger:read', 'ledger:write', 'ledger:period_close']): Promise<BooksApi> {
    const client = await LedgerFixtures.of(t).client({ scopes });
    return new BooksApi(t, await accessToken(t, client), client);
  }

  private http() {
    return request(this.t.app.getHttpServer());
  }

  get(path: string) {
    return this.http().get(`/ledger/v1${path}`).set('Authorization', `Bearer ${this.token}`);
  }

  post(path: string, body?: object, key: string | null = randomUUID()) {
    const req = this.http().post(`/ledger/v1${path}`).set('Authorization', `Bearer ${this.token}`);
    if (key !== null) req.set('Idempotency-Key', key);
    return req.send(body);
  }

  patch(path: string, body?: object, key: string | null = randomUUID()) {
    const req = this.http().patch(`/ledger/v1${path}`).set('Authorization', `Bearer ${this.token}`);
    if (key !== null) req.set('Idempotency-Key', key);
    return req.send(body);
  }

  delete(path: string) {
    return this.http().delete(`/ledger/v1${path}`).set('Authorization', `Bearer ${this.token}`);
  }

  /** Creates an account, failing the test on anything but 201. */
  async account(id: string, type: string, currency = 'USD', extra: Json = {}): Promise<Json> {
    const res = await this.post('/accounts', { id, name: id, type, currency, ...extra });
    if (res.status !== 201) throw new Error(`account ${id}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  }

  /** A transaction of `postings` (see `leg`), with any other body fields in `extra`. */
  book(postings: Json[], extra: Json = {}, key?: string) {
    return this.post('/transactions', { postings, ...extra }, key);
  }

  /** A two-leg transfer of `amount` from `from` (credited) to `to` (debited). */
  transfer(from: string, to: string, amount: string, currency = 'USD', extra: Json = {}, key?: string) {
    return this.book([leg('debit', to, amount, currency), leg('credit', from, amount, currency)], extra, key);
  }

  async balance(id: string): Promise<{ posted: string; pending: string; available: string }> {
    const res = await this.get(`/accounts/${encodeURIComponent(id).replace(/%3A/g, ':')}/balance`);
    if (res.status !== 200) throw new Error(`balance ${id}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  }

  async events(type: string): Promise<Json[]> {
    const res = await this.get(`/events?type=${type}&limit=200`);
    if (res.status !== 200) throw new Error(`events: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  }
}
