import { DataSource } from 'typeorm';
import { IdempotencyService } from '../../src/idempotency/idempotency.service';
import { ledgerApi } from '../ledger-api-client';
import { accessToken, LedgerFixtures, TestClient } from '../ledger-fixtures';
import { ledgerAppStack, startLedgerTestApp } from '../ledger-test-app';

const SCOPES = ['ledger:read', 'ledger:write', 'ledger:clients:read', 'ledger:clients:write'];

describe('Idempotency keys (@Idempotent)', () => {
  const t = ledgerAppStack('idempotency');
  let client: TestClient;
  let api: ReturnType<typeof ledgerApi>;
  const count = async (table: string, where: string, params: unknown[]) =>
    Number((await t.app.get(DataSource).query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, params))[0].n);

  beforeAll(async () => {
    client = await LedgerFixtures.of(t).client({ scopes: SCOPES });
    api = ledgerApi({ t, token: await accessToken(t, client) });
  });

  const createClient = (key: string, name = 'Reporting') =>
    api.post('/oauth_clients', { name, mode: 'test', scopes: ['ledger:read'], ledger_id: client.ledgerId }).set('Idempotency-Key', key);

  it('writes once under 50 parallel retries; the rest see in_progress or the replay', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => createClient('burst-1', 'Burst')));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => [201, 200, 409].includes(s))).toBe(true);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('in_progress');
    expect(await count('oauth_clients', 'name = $1', ['Burst'])).toBe(1);

    const [original] = results.filter((r) => r.status === 201);
    const replay = await createClient('burst-1', 'Burst').expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data).toEqual(original.body.data);
    expect(original.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses the key for a different request with 409 already_exists', async () => {
    await createClient('k-2', 'First').expect(201);
    const res = await createClient('k-2', 'Second').expect(409);
    expect(res.body.error).toMatchObject({ code: 'already_exists', param: 'Idempotency-Key' });
    // The same body with reordered fields is the same request.
    const same = await api
      .post('/oauth_clients', { ledger_id: client.ledgerId, scopes: ['ledger:read'], mode: 'test', name: 'First' })
      .set('Idempotency-Key', 'k-2')
      .expect(200);
    expect(same.headers['idempotent-replayed']).toBe('true');
  });

  it('takes the key from the body when no header is sent; the header wins over it', async () => {
    const body = { name: 'Body key', mode: 'test', scopes: ['ledger:read'], ledger_id: client.ledgerId };
    const first = await api.post('/oauth_clients', { ...body, idempotency_key: 'body-1' }).expect(201);
    const again = await api.post('/oauth_clients', { ...body, idempotency_key: 'body-1' }).expect(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    const header = await api.post('/oauth_clients', { ...body, idempotency_key: 'body-1' }).set('Idempotency-Key', 'hdr-1').expect(201);
    expect(header.body.data.id).not.toBe(first.body.data.id);
  });

  it('scopes keys per route: the same key on another route is a new request', async () => {
    await api.post('/ledgers', { name: 'Keyed', mode: 'test' }).set('Idempotency-Key', 'k-2').expect(201);
  });

  it('keeps nothing for a failed request, so a corrected retry may reuse the key', async () => {
    await api.post('/ledgers', { name: '', mode: 'test' }).set('Idempotency-Key', 'fix-me').expect(422);
    await api.post('/ledgers', { name: 'Fixed', mode: 'test' }).set('Idempotency-Key', 'fix-me').expect(201);
  });

  it('stores replayable bodies sealed, never the client secret in clear', async () => {
    const res = await createClient('secret-1', 'Sealed').expect(201);
    const rows = await t.app.get(DataSource).query("SELECT response_body FROM idempotency_keys WHERE key = 'secret-1'");
    expect(rows[0].response_body).not.toContain(res.body.data.client_secret);
  });

  it.each([
    ['empty', ''],
    ['with a space', 'has space'],
    ['256 characters long', 'x'.repeat(256)],
    ['non-ASCII', 'ünïcode'],
  ])('refuses a key %s with 422', async (_, key) => {
    const res = await createClient(key);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' });
  });

  it('refuses a non-string body key with 422', async () => {
    const res = await api.post('/ledgers', { name: 'x', mode: 'test', idempotency_key: 42 }).expect(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'idempotency_key' });
  });

  describe('keys left behind', () => {
    const setKey = (key: string, sql: string) =>
      t.app.get(DataSource).query(`UPDATE idempotency_keys SET ${sql} WHERE key = $1`, [key]);

    it('answers 409 in_progress while the holder is alive, and lets a retry take over a dead one', async () => {
      await createClient('held', 'Held').expect(201);
      await setKey('held', "state = 'in_progress', completed_at = NULL, locked_at = now()");
      const busy = await createClient('held', 'Held').expect(409);
      expect(busy.body.error).toMatchObject({ code: 'in_progress', details: { idempotency_key: 'held' } });
      expect(busy.headers['retry-after']).toBe('1');
      await setKey('held', "locked_at = now() - interval '2 minutes'");
      await createClient('held', 'Held').expect(201);
      // A dead holder's key is not handed to a different request.
      await setKey('held', "state = 'in_progress', completed_at = NULL, locked_at = now() - interval '2 minutes'");
      await createClient('held', 'Other').expect(409);
    });

    it('keeps results forever by default; with a retention, expired keys are reusable and swept', async () => {
      await createClient('old', 'Old').expect(201);
      await setKey('old', "completed_at = now() - interval '400 days'");
      await createClient('old', 'Old').expect(200);

      const short = await startLedgerTestApp('idempotency_retention', { LEDGER_IDEMPOTENCY_RETENTION_HOURS: '1' });
      try {
        const c = await LedgerFixtures.of(short).client({ scopes: SCOPES });
        const shortApi = ledgerApi({ t: short, token: await accessToken(short, c) });
        const make = (name: string) =>
          shortApi.post('/ledgers', { name, mode: 'test' }).set('Idempotency-Key', 'expiring');
        await make('First').expect(201);
        await short.app.get(DataSource).query("UPDATE idempotency_keys SET completed_at = now() - interval '2 hours'");
        await make('Second').expect(201);
        await short.app.get(DataSource).query("UPDATE idempotency_keys SET completed_at = now() - interval '2 hours'");
        expect(await short.app.get(IdempotencyService).sweep()).toBe(1);
      } finally {
        await short.close();
      }
    });
  });
});
