import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { findSecretsInDatabase } from '@bursar/testing';
import { accessToken, LedgerFixtures } from '../ledger-fixtures';
import { ledgerAppStack } from '../ledger-test-app';

/**
 * After the ledger's secret-bearing routes ran (OAuth clients created and rotated, webhook signing
 * secrets created and rotated, inbound tokens and secrets created and rotated, all behind
 * idempotency keys whose stored replies hold them), no column of any table holds one in the clear.
 */
describe('ledger secrets at rest', () => {
  const t = ledgerAppStack('secrets_at_rest', { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });

  it('stores no client secret, signing secret, inbound token or inbound secret in the clear', async () => {
    const fx = LedgerFixtures.of(t);
    const admin = await fx.client({ scopes: ['ledger:read', 'ledger:write', 'ledger:clients:read', 'ledger:clients:write'] });
    const token = await accessToken(t, admin);
    const post = (path: string, body: object = {}) =>
      request(t.app.getHttpServer()).post(`/ledger/v1${path}`).set('Authorization', `Bearer ${token}`).set('Idempotency-Key', randomUUID()).send(body);
    const shown: string[] = [admin.clientSecret];

    const client = (await post('/oauth_clients', { name: 'Reporting', mode: 'test', scopes: ['ledger:read'], ledger_id: admin.ledgerId }).expect(201)).body.data;
    shown.push(client.client_secret, (await post(`/oauth_clients/${client.id}/rotate_secret`).expect(200)).body.data.client_secret);
    const endpoint = (await post('/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' }).expect(201)).body.data;
    shown.push(endpoint.signing_secret, (await post(`/webhook_endpoints/${endpoint.id}/rotate_secret`).expect(200)).body.data.signing_secret);
    const { id } = (await post('/sources', { name: 'bank' }).expect(201)).body.data;
    for (const body of [{}, { rotate: true }]) {
      const inbound = (await post(`/sources/${id}/inbound`, body).expect(201)).body.data;
      shown.push(inbound.token, inbound.secret);
    }
    expect(shown.every((s) => typeof s === 'string' && s.length >= 20)).toBe(true);

    const ds = t.app.get(DataSource);
    const scan = await findSecretsInDatabase(ds, shown);
    expect(scan.columns).toBeGreaterThan(50);
    expect(scan.hits).toEqual([]);

    // The scan can fail: a secret written in the clear is found.
    await ds.query('UPDATE reconciliation_sources SET description = $1 WHERE id = $2', [`leak ${shown[4]}`, id]);
    expect((await findSecretsInDatabase(ds, shown)).hits).toEqual([`reconciliation_sources.description: ${shown[4].slice(0, 12)}`]);
  });
});
