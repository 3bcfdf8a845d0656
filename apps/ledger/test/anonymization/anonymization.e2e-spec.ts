import request from 'supertest';
import { DataSource } from 'typeorm';
import { webhookTestEnv } from '@bursar/testing';
import { AccessTokenService } from '../../src/auth/access-token.service';
import { OauthClientEntity } from '../../src/oauth-clients/oauth-client.entity';
import { BooksApi, Json } from '../books-api';
import { accessToken, LedgerFixtures, TestClient } from '../ledger-fixtures';
import { LedgerTestApp, startLedgerTestApp } from '../ledger-test-app';

const PII = ['jane@example.com', 'Jane Roe', 'cp-jane', 'inv-jane', 'sender-jane', 'recipient-jane'];
const ANONYMIZE = { confirm: 'ANONYMIZE', reason: 'GDPR erasure request 42' };

/** Any personal value of PII in `value`, serialised. */
const leaks = (value: unknown) => PII.filter((p) => JSON.stringify(value).includes(p));

/** Moves `amount` USD from sales to cash, the cash leg tagged with `tags`. */
const sale = (api: BooksApi, amount: string, tags: Record<string, string>, extra: Json = {}) =>
  api.post('/transactions', {
    postings: [
      { account: 'cash', amount, currency: 'USD', direction: 'debit', tags },
      { account: 'sales', amount, currency: 'USD', direction: 'credit' },
    ],
    ...extra,
  });

describe('POST /ledger/v1/tenants/me/anonymize', () => {
  let t: LedgerTestApp;
  let fixtures: LedgerFixtures;

  /** A token for `client` issued `ageSeconds` ago, signed with the app's own key. */
  async function tokenIssuedAgo(client: TestClient, ageSeconds: number): Promise<string> {
    const entity = await t.app.get(DataSource).getRepository(OauthClientEntity).findOneByOrFail({ id: client.clientId });
    const issued = await t.app.get(AccessTokenService).issue(entity, entity.scopes, new Date(Date.now() - ageSeconds * 1000));
    return issued.token;
  }

  const anonymize = (token: string, body: object = ANONYMIZE) =>
    request(t.app.getHttpServer()).post('/ledger/v1/tenants/me/anonymize').set('Authorization', `Bearer ${token}`).send(body);

  /** Books full of personal data: accounts, a transfer, a refund, events and webhook deliveries. */
  async function seed(api: BooksApi): Promise<{ transferId: string; refundId: string; deliveryId: string }> {
    const endpoint = (await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' }).expect(201)).body.data;
    await api.account('cash', 'asset', 'USD', { metadata: { email: 'jane@example.com' }, counterparty_ref: 'cp-jane' });
    await api.account('sales', 'revenue', 'USD', { metadata: { name: 'Jane Roe' } });
    const transfer = await sale(api, '1250', { invoice: 'inv-jane' }, {
      metadata: { customer: 'Jane Roe', nested: { email: 'jane@example.com' } },
      external_refs: [{ rail: 'ach', kind: 'trace', value: 'T-1', metadata: { payer: 'Jane Roe' } }],
    }).expect(201);
    const refund = await api.post(`/transactions/${transfer.body.data.id}/refund`, { amount: '250', metadata: { why: 'Jane Roe' } }).expect(201);
    const sent = await api
      .post(`/webhook_endpoints/${endpoint.id}/test_send`, {
        payload: { metadata: { email: 'jane@example.com' }, sender_party_id: 'sender-jane', deep: [{ recipient_party_id: 'recipient-jane' }] },
      })
      .expect(201);
    return { transferId: transfer.body.data.id, refundId: refund.body.data.id, deliveryId: sent.body.data.id };
  }

  /** Waits until the webhook relay and publisher have handled every event and delivery. */
  async function quiesce(): Promise<void> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const [{ n }] = await t.app.get(DataSource).query(
        `SELECT (SELECT count(*) FROM events WHERE relayed_at IS NULL)
              + (SELECT count(*) FROM webhook_deliveries WHERE published_at IS NULL AND status = 'pending') AS n`,
      );
      if (Number(n) === 0) return;
      if (Date.now() > deadline) throw new Error(`${n} events/deliveries still waiting for the relay`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Every read an API client could make of the books, webhooks included, once the relay is idle. */
  async function everything(api: BooksApi): Promise<Json> {
    await quiesce();
    // Every change sealed, so reads name their final log_index (201, or 409 while the ledger's log is empty).
    await api.post('/log/checkpoints');
    const read = async (path: string) => (await api.get(path).expect(200)).body.data;
    const endpoints: Json[] = await read('/webhook_endpoints');
    const deliveries = [];
    for (const e of endpoints) deliveries.push(...(await read(`/webhook_endpoints/${e.id}/deliveries?limit=200`)));
    return {
      accounts: await read('/accounts?limit=200'),
      transactions: await read('/transactions?limit=200'),
      postings: await read('/postings?limit=500'),
      events: await read('/events?limit=200'),
      deliveries: deliveries.sort((a, b) => (a.id < b.id ? -1 : 1)),
    };
  }

  /** What anonymization must keep: amounts, balances, links between transactions. */
  async function money(api: BooksApi): Promise<Json> {
    const all = await everything(api);
    return {
      transactions: (all.transactions as Json[]).map((x) => ({
        id: x.id,
        status: x.status,
        reverses: x.reverses,
        refunds: x.refunds,
        refund_amount: x.refund_amount,
        postings: (x.postings as Json[]).map(({ id, account, amount, currency, direction, pending, voided_at }) => ({
          id, account, amount, currency, direction, pending, voided_at,
        })),
      })),
      balances: { cash: await api.balance('cash'), sales: await api.balance('sales') },
      trial_balance: (({ healthy, totals_by_currency, accounts }) => ({ healthy, totals_by_currency, accounts }))(
        (await api.get('/reports/trial_balance').expect(200)).body.data,
      ),
    };
  }

  beforeAll(async () => {
    t = await startLedgerTestApp('anonymization', { ...webhookTestEnv('anonymization'), LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' });
    fixtures = LedgerFixtures.of(t);
  }, 30_000);
  afterAll(() => t.close());

  describe('on a tenant with personal data', () => {
    let test: BooksApi;
    let live: BooksApi;
    let other: BooksApi;
    let seeded: Awaited<ReturnType<typeof seed>>;

    beforeAll(async () => {
      test = await BooksApi.start(t, ['ledger:read', 'ledger:write']);
      const liveClient = await fixtures.client({ mode: 'live', organizationId: test.client.organizationId });
      live = new BooksApi(t, await accessToken(t, liveClient), liveClient);
      other = await BooksApi.start(t, ['ledger:read', 'ledger:write']);
      seeded = await seed(test);
      await seed(live);
      await seed(other);
    }, 30_000);

    it('refuses a token issued more than five minutes ago with 401 fresh_authentication_required, changing nothing', async () => {
      const before = await everything(test);
      const res = await anonymize(await tokenIssuedAgo(test.client, 6 * 60)).expect(401);
      expect(res.body.error).toMatchObject({ code: 'fresh_authentication_required' });
      expect(res.body.error.details).toMatchObject({ max_token_age_seconds: 300 });
      expect(await everything(test)).toEqual(before);
    });

    it('needs ledger:write (403 insufficient_scope) and confirm "ANONYMIZE" (422), changing nothing', async () => {
      const before = await everything(test);
      const readOnly = await anonymize(await accessToken(t, test.client, 'ledger:read')).expect(403);
      expect(readOnly.body.error.code).toBe('insufficient_scope');
      expect(readOnly.headers['www-authenticate']).toContain('scope="ledger:write"');
      const fresh = await accessToken(t, test.client);
      for (const body of [{ confirm: 'anonymize' }, {}, { confirm: 'ANONYMIZE', reason: '' }, { confirm: 'ANONYMIZE', extra: 1 }]) {
        const res = await anonymize(fresh, body).expect(422);
        expect(res.body.error.code).toBe('invalid_request');
      }
      expect((await anonymize(fresh, { confirm: 'nope' }).expect(422)).body.error.details.fields).toHaveProperty('confirm');
      for (const raw of ['[]', '{"confirm":', '"ANONYMIZE"']) {
        const res = await request(t.app.getHttpServer())
          .post('/ledger/v1/tenants/me/anonymize')
          .set('Authorization', `Bearer ${fresh}`)
          .set('Content-Type', 'application/json')
          .send(raw);
        expect({ raw, status: res.status, code: res.body.error?.code }).toEqual({ raw, status: 422, code: 'invalid_request' });
      }
      expect(await everything(test)).toEqual(before);
    });

    it('erases metadata and party references of its organization and mode, keeping every amount', async () => {
      const moneyBefore = await money(test);
      const before = { test: await everything(test), live: await everything(live), other: await everything(other) };
      expect(leaks(before.test)).toEqual(PII);

      // Four minutes old is still fresh.
      const res = await anonymize(await tokenIssuedAgo(test.client, 4 * 60)).expect(202);
      expect(res.body).toMatchObject({ livemode: false, request_id: expect.stringMatching(/^req_/) });
      expect(res.body.data).toEqual({
        object: 'anonymization_result',
        anonymization_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'completed',
        anonymized_at: expect.any(String),
        reason: ANONYMIZE.reason,
      });

      const after = await everything(test);
      expect(leaks(after)).toEqual([]);
      expect(await money(test)).toEqual(moneyBefore);
      const cash = (after.accounts as Json[]).find((a) => a.id === 'cash');
      expect(cash).toMatchObject({ metadata: {}, counterparty_ref: 'REDACTED' });
      const transfer = (await test.get(`/transactions/${seeded.transferId}`).expect(200)).body.data;
      expect(transfer.metadata).toEqual({});
      expect(transfer.external_refs[0]).toMatchObject({ value: 'T-1', metadata: {} });
      expect(transfer.postings.map((p: Json) => p.tags)).toEqual([{}, {}]);
      // The ledger's own correction marker links money records and survives.
      const refund = (await test.get(`/transactions/${seeded.refundId}`).expect(200)).body.data;
      expect(refund.metadata).toEqual({ _refund_of: seeded.transferId });
      const delivery = (await test.get(`/webhook_deliveries/${seeded.deliveryId}`).expect(200)).body.data;
      expect(JSON.parse(delivery.request_body).data).toEqual({ metadata: {}, sender_party_id: 'REDACTED', deep: [{ recipient_party_id: 'REDACTED' }] });

      // The same organization's live books and another organization's books are untouched.
      expect(await everything(live)).toEqual(before.live);
      expect(await everything(other)).toEqual(before.other);
      expect(leaks(before.live)).toEqual(PII);

      const [row] = await t.app.get(DataSource).query('SELECT organization_id, mode, reason, counts FROM anonymizations WHERE id = $1', [
        res.body.data.anonymization_id,
      ]);
      expect(row).toMatchObject({ organization_id: test.client.organizationId, mode: 'test', reason: ANONYMIZE.reason });
      expect(row.counts).toMatchObject({ accounts: 2, transactions: 2, postings: 1, transaction_external_refs: 1 });

      // Irreversible and repeatable: a second run finds nothing left to erase.
      const again = await anonymize(await accessToken(t, test.client), { confirm: 'ANONYMIZE' }).expect(202);
      expect(again.body.data.reason).toBeNull();
      expect(await everything(test)).toEqual(after);
    });
  });

  it('answers 403 tenant_suspended while the organization is suspended', async () => {
    const api = await BooksApi.start(t, ['ledger:read', 'ledger:write']);
    await fixtures.run('suspend-organization', '--organization', api.client.organizationId);
    expect((await anonymize(api.token).expect(403)).body.error.code).toBe('tenant_suspended');
  });

  it('runs beside racing writes without errors; each new transaction lands wholly before or after it', async () => {
    const api = await BooksApi.start(t, ['ledger:read', 'ledger:write']);
    await api.account('cash', 'asset');
    await api.account('sales', 'revenue');
    const transfer = () => sale(api, '1', { invoice: 'inv-jane' }, { metadata: { customer: 'Jane Roe' } });
    const patched = (await transfer().expect(201)).body.data.id;
    // Metadata edits lock a row and then append an event: the mix that deadlocks a careless lock order.
    const writes = () => [
      transfer(),
      transfer(),
      api.patch('/accounts/cash', { metadata: { email: 'jane@example.com' } }),
      api.patch(`/transactions/${patched}`, { metadata: { note: 'Jane Roe' } }),
    ];
    const early = [...writes(), ...writes()];
    // Anonymize once the first writes are landing, with more following it.
    await Promise.race(early);
    const results = await Promise.all([...early, anonymize(api.token), ...writes(), ...writes()]);
    expect(results.map((r) => r.status).sort()).toEqual([...Array(8).fill(200), ...Array(8).fill(201), 202]);
    const transactions: Json[] = (await api.get('/transactions?limit=200').expect(200)).body.data;
    expect(transactions).toHaveLength(9);
    for (const x of transactions.filter((x) => x.id !== patched)) {
      const erased = Object.keys(x.metadata as Json).length === 0;
      expect(Object.keys((x.postings as Json[])[0].tags as Json).length === 0).toBe(erased);
    }
    expect((await api.balance('cash')).posted).toBe('9');
  });

  it('waits for a posting write in flight on one of its ledgers', async () => {
    const api = await BooksApi.start(t, ['ledger:read', 'ledger:write']);
    await api.account('sales', 'revenue');
    // A write's first step, held open: the ledger's shared write lock plus an account with nothing to erase.
    const runner = t.app.get(DataSource).createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query(`SELECT pg_advisory_xact_lock_shared(hashtextextended('books:' || $1::text, 0))`, [api.client.ledgerId]);
    await runner.query(`SELECT 1 FROM accounts WHERE ledger_id = $1 AND id = 'sales' FOR NO KEY UPDATE`, [api.client.ledgerId]);
    let answered = false;
    const pending = anonymize(api.token).then((res) => {
      answered = true;
      return res;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBe(false);
    await runner.commitTransaction();
    await runner.release();
    expect((await pending).status).toBe(202);
  });

  it('is documented in the OpenAPI document with its 202 result', async () => {
    const doc = (await request(t.app.getHttpServer()).get('/ledger/v1/openapi.json').expect(200)).body;
    const op = doc.paths['/ledger/v1/tenants/me/anonymize'].post;
    expect(JSON.stringify(op.responses['202'])).toContain('#/components/schemas/AnonymizationResultResponse');
    expect(doc.components.schemas.AnonymizeDto.required).toEqual(['confirm']);
  });

  describe('posting immutability outside anonymization', () => {
    let postingId: string;
    const db = () => t.app.get(DataSource);

    beforeAll(async () => {
      const api = await BooksApi.start(t, ['ledger:read', 'ledger:write']);
      await api.account('cash', 'asset');
      await api.account('sales', 'revenue');
      const tx = await sale(api, '5', { k: 'v' }).expect(201);
      postingId = String(tx.body.data.postings[0].id);
    });

    it('still refuses clearing tags without the anonymization session setting', async () => {
      await expect(db().query(`UPDATE postings SET tags = '{}' WHERE id = $1`, [postingId])).rejects.toThrow(/immutable/);
    });

    it('refuses any other change even with the setting on', async () => {
      await expect(
        db().transaction(async (m) => {
          await m.query(`SELECT set_config('bursar.anonymizing', 'on', true)`);
          await m.query(`UPDATE postings SET tags = '{}', amount = amount + 1 WHERE id = $1`, [postingId]);
        }),
      ).rejects.toThrow(/immutable/);
      await expect(
        db().transaction(async (m) => {
          await m.query(`SELECT set_config('bursar.anonymizing', 'on', true)`);
          await m.query(`UPDATE postings SET tags = '{"k":"w"}' WHERE id = $1`, [postingId]);
        }),
      ).rejects.toThrow(/immutable/);
      const [row] = await db().query('SELECT tags, amount::text FROM postings WHERE id = $1', [postingId]);
      expect(row).toEqual({ tags: { k: 'v' }, amount: '5' });
    });
  });
});
