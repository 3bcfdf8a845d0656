import request from 'supertest';
import { DataSource } from 'typeorm';
import { findSecretsInDatabase, suiteStack } from '@bursar/testing';
import { cosignKeyAad } from '../../src/cosign/cosign-keys.service';
import { bearer, createAgent } from '../control-fixtures';
import { startDecisionStack } from '../decision-fixtures';

/**
 * After control's secret-bearing routes ran (agent keys, webhook signing secrets created and
 * rotated, invitation tokens) and cosigning keys were made, no column of any table holds one of
 * those secrets, or a cosigning private key, in the clear.
 */
describe('control secrets at rest', () => {

  const s = suiteStack(() => startDecisionStack('secrets_at_rest', { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }), 30_000);

  it('stores no agent key, signing secret, invitation token or cosign private key in the clear', async () => {
    const http = () => request(s.t.app.getHttpServer());
    const base = `/control/v1/workspaces/${s.slug}`;
    const shown: string[] = [];
    for (const name of ['buyer', 'seller']) shown.push((await createAgent(s.t.app, s.owner, s.slug, { name })).api_key);
    const endpoint = (await http().post(`${base}/webhook_endpoints`).set(bearer(s.owner)).send({ url: 'http://127.0.0.1:9/hook' }).expect(201)).body.data;
    shown.push(endpoint.secret, (await http().post(`${base}/webhook_endpoints/${endpoint.id}/rotate`).set(bearer(s.owner)).expect(200)).body.data.secret);
    const invitation = await http().post(`${base}/invitations`).set(bearer(s.owner)).send({ email: 'new@example.com', role: 'member' }).expect(201);
    shown.push(invitation.body.data.token);

    const ds = s.t.app.get(DataSource);
    const box = s.t.settings.rootKeys.sealedRows();
    const cosign: { kid: string; private_jwk_sealed: string }[] = await ds.query('SELECT kid, private_jwk_sealed FROM cosign_keys');
    expect(cosign.length).toBeGreaterThan(0);
    expect(shown).toHaveLength(5);
    for (const row of cosign) shown.push(JSON.parse(box.decrypt(row.private_jwk_sealed, cosignKeyAad(row.kid))).d);
    expect(shown.every((v) => typeof v === 'string' && v.length >= 20)).toBe(true);

    const scan = await findSecretsInDatabase(ds, shown);
    expect(scan.columns).toBeGreaterThan(50);
    expect(scan.hits).toEqual([]);
    await ds.query('UPDATE webhook_endpoints SET description = $1 WHERE id = $2', [shown[2], endpoint.id]);
    expect((await findSecretsInDatabase(ds, shown)).hits).toEqual([`webhook_endpoints.description: ${shown[2].slice(0, 12)}`]);
  });
});
