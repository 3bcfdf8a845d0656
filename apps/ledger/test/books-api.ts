import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { freePort } from '@bursar/dev-infra';
import { suiteStack } from '@bursar/testing';
import { accessToken, LedgerFixtures, TestClient } from './ledger-fixtures';
import { LedgerTestApp, startLedgerTestApp } from './ledger-test-app';

export type Json = Record<string, unknown>;

/** One posting of a transaction body; `extra` adds fields such as `pending` or `tags`. */
export function leg(direction: 'debit' | 'credit', account: string, amount: string, currency = 'USD', extra: Json = {}): Json {
  return { account, amount, currency, direction, ...extra };
}

/** The ledger app for books tests: write rate limit out of the way; DEBUG_LOG=error shows server errors. */
export function startBooksApp(label: string, env: Record<string, string> = {}): Promise<LedgerTestApp> {
  return startLedgerTestApp(label, { LEDGER_RATE_LIMIT_WRITES_PER_SECOND: '100000', LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent', ...env });
}

/** A client of the books routes (/ledger/v1) holding one access token; writes carry a fresh Idempotency-Key. */
export class BooksApi {
  constructor(
    readonly t: LedgerTestApp,
    readonly token: string,
    readonly client: TestClient,
  ) {}

  /** A fresh organization, ledger and client with read, write and period_close scopes. */
  static async start(t: LedgerTestApp, scopes = ['ledger:read', 'ledger:write', 'ledger:period_close']): Promise<BooksApi> {
    const client = await LedgerFixtures.of(t).client({ scopes });
    return new BooksApi(t, await accessToken(t, client), client);
  }

  /** Closes the app it is a client of. */
  close(): Promise<void> {
    return this.t.close();
  }

  /** Bootstraps more organizations, ledgers and clients on the same app. */
  get fx(): LedgerFixtures {
    return LedgerFixtures.of(this.t);
  }

  get db(): DataSource {
    return this.t.db;
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

/** An account a stack opens with: id, type, then `currency` and `extra` as `BooksApi.account` takes them. */
export type AccountRow = [id: string, type: string, currency?: string, extra?: Json];

/** The accounts specs book against most, by id (USD unless named otherwise): a stack opens them by name alone. */
const USUAL_ACCOUNTS: Record<string, [type: string, currency?: string, extra?: Json]> = {
  cash: ['asset'], bank: ['asset'], hold: ['asset'], equipment: ['asset'], idle: ['asset'], assets: ['asset'],
  deposits: ['liability'], merchant: ['liability'], loan: ['liability'], wallet: ['liability', 'USD', { overdraft_policy: 'none' }],
  capital: ['equity'], sales: ['revenue'], fees: ['revenue'], revenue: ['revenue'], rent: ['expense'],
  'eur:cash': ['asset', 'EUR'], 'eur:deposits': ['liability', 'EUR'], 'eur:capital': ['equity', 'EUR'], 'eur:sales': ['revenue', 'EUR'],
};

function accountRow(account: string | AccountRow): AccountRow {
  if (typeof account !== 'string') return account;
  const usual = USUAL_ACCOUNTS[account];
  if (!usual) throw new Error(`${account} is not a usual account: give it as [id, type, currency, extra]`);
  return [account, ...usual];
}

export interface BooksStackSpec {
  /** Settings for the app beyond the test defaults. */
  env?: Record<string, string>;
  /** The client's scopes (BooksApi.start's default when absent). */
  scopes?: string[];
  /** The app listens on a free port named as its LEDGER_PUBLIC_URL, for clients that check where it says it is. */
  listen?: boolean;
  /** Opened in this order: the id of a usual account, or a row. */
  accounts?: readonly (string | AccountRow)[];
}

/**
 * A ledger app for one describe block and a client of it, with the accounts the spec declares: opened in
 * beforeAll, closed in afterAll. The answer is that client; `.t` is the app, `.fx` and `.db` reach behind it.
 */
export function booksStack(label: string, spec: BooksStackSpec = {}): BooksApi {
  return suiteStack(
    async () => {
      const port = spec.listen ? await freePort() : undefined;
      const t = await startBooksApp(label, { ...(port !== undefined && { LEDGER_PUBLIC_URL: `http://127.0.0.1:${port}` }), ...spec.env });
      try {
        if (port !== undefined) await t.app.listen(port, '127.0.0.1');
        const api = await BooksApi.start(t, spec.scopes);
        for (const [id, type, currency, extra] of (spec.accounts ?? []).map(accountRow)) await api.account(id, type, currency, extra);
        return api;
      } catch (err) {
        await t.close();
        throw err;
      }
    },
  );
}
