import request from 'supertest';
import { accessToken, LedgerFixtures } from '../ledger-fixtures';
import { ledgerAppStack } from '../ledger-test-app';

/** Optional fields sent as an explicit null, found by `pnpm fuzz` (each answered 500 before). */
describe('explicit nulls in optional fields', () => {
  const t = ledgerAppStack('explicit_nulls');
  let auth: Record<string, string>;
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    auth = { Authorization: `Bearer ${await accessToken(t, await LedgerFixtures.of(t).client())}` };
    for (const id of ['cash', 'revenue']) await http().post('/ledger/v1/accounts').set(auth).send({ id, name: id, type: 'asset', currency: 'USD' }).expect(201);
  });

  it('keeps a transaction on a null metadata patch, and reverses it whole when amount is null', async () => {
    const txn = await http().post('/ledger/v1/transactions').set(auth).set('Idempotency-Key', 'nulls-1').send({
      postings: [
        { account: 'cash', direction: 'debit', amount: '100', currency: 'USD' },
        { account: 'revenue', direction: 'credit', amount: '100', currency: 'USD' },
      ],
    }).expect(201);
    const id = txn.body.data.id;
    // metadata null on PATCH leaves the transaction as it is.
    await http().patch(`/ledger/v1/transactions/${id}`).set(auth).send({ metadata: null, merge: true }).expect(200);
    const res = await http().post(`/ledger/v1/transactions/${id}/reverse`).set(auth).set('Idempotency-Key', 'nulls-2').send({ amount: null });
    expect(res.status).toBe(201);
  });

  it('creates a source with a null tolerance at the default', async () => {
    const res = await http().post('/ledger/v1/sources').set(auth).send({ name: 'bank', kind: 'custom', default_tolerance_minor_units: null }).expect(201);
    expect(res.body.data.default_tolerance_minor_units).toBe('0');
  });

  it('refuses a custody id without its provider given as null (422)', async () => {
    const res = await http().post('/ledger/v1/account_templates').set(auth)
      .send({ name: 'held', accounting_type: 'asset', fund_classification: 'client_held', custody_provider: null, custody_external_id: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.error.param).toBe('custody_provider');
  });
});
