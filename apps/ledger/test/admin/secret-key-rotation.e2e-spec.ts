import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { RootKeys, SecretBox, sealedKeyId } from '@bursar/crypto';
import { testSecretKey } from '@bursar/testing';
import { operatorHelp } from '@bursar/service-kit';
import { LEDGER_ADMIN, LEDGER_ADMIN_COMMANDS, runLedgerAdmin } from '../../src/admin/ledger-admin';
import { LEDGER_SEALED_COLUMNS } from '../../src/admin/ledger-sealed-columns';
import { accessToken, LedgerFixtures } from '../ledger-fixtures';
import { LedgerTestApp, startLedgerTestApp } from '../ledger-test-app';

/**
 * Rotating LEDGER_SECRET_KEY online: rows sealed under the old key (and one in the legacy format)
 * exist, the service is redeployed with the new key and the old one as previous, and the CLI
 * re-seals every row while parallel requests create and read sealed rows.
 */
describe('rotate-secret-key under write load', () => {
  const oldKey = testSecretKey();
  const newKey = testSecretKey();
  const oldKid = new RootKeys(oldKey).currentId;
  const newKid = new RootKeys(newKey).currentId;
  let before: LedgerTestApp;
  let after: LedgerTestApp;

  beforeAll(async () => {
    before = await startLedgerTestApp('rotation_old', { LEDGER_SECRET_KEY: oldKey, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });
  afterAll(async () => {
    await after?.close();
    await before.close();
  });

  const api = (t: LedgerTestApp, token: string) => ({
    get: (path: string) => request(t.app.getHttpServer()).get(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`),
    post: (path: string, body: object = {}) =>
      request(t.app.getHttpServer()).post(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`).set('Idempotency-Key', randomUUID()).send(body),
  });

  /** Every sealed value of the database, with the AAD that opens it. */
  async function sealedValues(ds: DataSource): Promise<{ where: string; sealed: string; aad: string }[]> {
    const out: { where: string; sealed: string; aad: string }[] = [];
    for (const c of LEDGER_SEALED_COLUMNS) {
      const keys = c.key.map((k) => `"${k}"::text AS "${k}"`).join(', ');
      const rows = await ds.query(`SELECT ${keys}, "${c.column}" AS sealed FROM "${c.table}" WHERE "${c.column}" IS NOT NULL`);
      for (const row of rows) out.push({ where: `${c.table}.${c.column}`, sealed: row.sealed, aad: c.aad(row) });
    }
    return out;
  }

  it('re-seals every old row while requests run; old and new rows open during and after; old tokens stay valid', async () => {
    const client = await LedgerFixtures.of(before).client();
    const oldToken = await accessToken(before, client);
    const old = api(before, oldToken);
    const secrets = new Map<string, string>();
    const oldSources: { id: string; url: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const endpoint = (await old.post('/webhook_endpoints', { url: `http://127.0.0.1:9/old-${i}` }).expect(201)).body.data;
      secrets.set(endpoint.id, endpoint.signing_secret);
      const { id } = (await old.post('/sources', { name: `old-bank-${i}` }).expect(201)).body.data;
      const inbound = (await old.post(`/sources/${id}/inbound`).expect(201)).body.data;
      oldSources.push({ id, url: inbound.url });
    }
    const rotatedEndpoint = [...secrets.keys()][0];
    await old.post(`/webhook_endpoints/${rotatedEndpoint}/rotate_secret`).expect(200);
    // One row in the legacy format: sealed with the raw root key, no kid.
    const ds = before.app.get(DataSource);
    const legacyId = [...secrets.keys()][1];
    await ds.query('UPDATE webhook_endpoints SET secret_sealed = $1 WHERE id = $2', [
      SecretBox.fromBase64(oldKey).encrypt(secrets.get(legacyId) as string, `webhook_endpoint:${legacyId}`),
      legacyId,
    ]);
    const oldValues = await sealedValues(ds);
    expect(oldValues.filter((v) => sealedKeyId(v.sealed) === oldKid).length).toBeGreaterThan(40);
    const oldCursor = (await old.get('/sources?limit=2').expect(200)).body.next_cursor;

    // Redeploy: the new key current, the old one previous.
    after = await startLedgerTestApp('rotation_new', {
      LEDGER_DATABASE_URL: before.settings.LEDGER_DATABASE_URL,
      LEDGER_SECRET_KEY: newKey,
      LEDGER_PREVIOUS_SECRET_KEYS: oldKey,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    const svc = api(after, oldToken);
    expect((await svc.get(`/sources?limit=2&cursor=${oldCursor}`).expect(200)).body.data).toHaveLength(2);

    let stop = false;
    const failures: string[] = [];
    let writes = 0;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const created = await svc.post('/webhook_endpoints', { url: `http://127.0.0.1:9/w${w}-${i}` });
        if (created.status !== 201) failures.push(`create endpoint ${created.status}`);
        else secrets.set(created.body.data.id, created.body.data.signing_secret);
        const source = oldSources[(w + i) % oldSources.length];
        const read = await svc.get(`/sources/${source.id}`);
        if (read.status !== 200 || read.body.data.inbound_url !== source.url) failures.push(`read source ${read.status}`);
        const replay = await svc.post(`/sources/${source.id}/inbound`);
        if (replay.status !== 201 || replay.body.data.url !== source.url) failures.push(`inbound ${replay.status}`);
        writes += 1;
      }
    };
    const load = Promise.all([0, 1, 2, 3, 4, 5].map(worker));
    const report = await runLedgerAdmin(['rotate-secret-key', '--batch-size', '5'], ds, { keys: after.settings.rootKeys });
    stop = true;
    await load;

    expect(failures).toEqual([]);
    expect(writes).toBeGreaterThan(0);
    expect(report).toMatchObject({ object: 'secret_key_rotation', kid: newKid, previous_kids: [oldKid], unreadable: 0 });
    expect(report.resealed).toBeGreaterThanOrEqual(oldValues.length - (report.skipped as number));

    // After: nothing carries the old kid or the legacy format, and the new key alone opens everything.
    const newOnly = new RootKeys(newKey).sealedRows();
    const values = await sealedValues(ds);
    expect(values.length).toBeGreaterThan(oldValues.length);
    for (const v of values) {
      expect({ where: v.where, kid: sealedKeyId(v.sealed) }).toEqual({ where: v.where, kid: newKid });
      expect(() => newOnly.decrypt(v.sealed, v.aad)).not.toThrow();
    }
    const endpoints = await ds.query('SELECT id, secret_sealed FROM webhook_endpoints');
    for (const e of endpoints) {
      if (e.id === rotatedEndpoint) continue;
      expect(newOnly.decrypt(e.secret_sealed, `webhook_endpoint:${e.id}`)).toBe(secrets.get(e.id));
    }
    for (const source of oldSources) expect((await svc.get(`/sources/${source.id}`).expect(200)).body.data.inbound_url).toBe(source.url);
    // A second run finds nothing left to do.
    expect(await runLedgerAdmin(['rotate-secret-key'], ds, { keys: after.settings.rootKeys })).toMatchObject({ resealed: 0, unreadable: 0 });
  });

  it('answers --help and refuses to rotate without keys', async () => {
    const ds = before.app.get(DataSource);
    expect(operatorHelp(LEDGER_ADMIN, LEDGER_ADMIN_COMMANDS, ['--help'])?.usage).toEqual(expect.arrayContaining([expect.stringContaining('rotate-secret-key')]));
    await expect(runLedgerAdmin(['rotate-secret-key'], ds)).rejects.toThrow(/LEDGER_SECRET_KEY/);
    await expect(runLedgerAdmin(['rotate-secret-key', '--batch-size', '0'], ds, { keys: before.settings.rootKeys })).rejects.toThrow(/--batch-size/);
  });
});
