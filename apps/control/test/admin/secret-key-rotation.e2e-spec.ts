import request from 'supertest';
import { DataSource } from 'typeorm';
import { RootKeys, SecretBox, sealedKeyId } from '@bursar/crypto';
import { testSecretKey } from '@bursar/testing';
import { runControlAdmin } from '../../src/admin/control-admin';
import { CONTROL_SEALED_COLUMNS } from '../../src/admin/control-sealed-columns';
import { CosignKeysService } from '../../src/cosign/cosign-keys.service';
import { bearer } from '../control-fixtures';
import { ControlTestApp, startControlTestApp } from '../control-test-app';
import { COSIGN_ISSUER, DecisionStack, startDecisionStack } from '../decision-fixtures';

/** CONTROL_SECRET_KEY rotation: old rows (one legacy) re-sealed while a redeployed replica registers endpoints. */
describe('control rotate-secret-key', () => {
  const oldKey = testSecretKey();
  const newKey = testSecretKey();
  let s: DecisionStack;
  let after: ControlTestApp;

  beforeAll(async () => {
    s = await startDecisionStack('rotation', { CONTROL_SECRET_KEY: oldKey, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  }, 30_000);
  afterAll(async () => {
    await after?.close();
    await s.close();
  });

  it('re-seals webhook secrets and cosigning keys under the new key while writes continue', async () => {
    const path = `/control/v1/workspaces/${s.slug}/webhook_endpoints`;
    const create = (t: ControlTestApp, i: string) => request(t.app.getHttpServer()).post(path).set(bearer(s.owner)).send({ url: `http://127.0.0.1:9/${i}` });
    const secrets = new Map<string, string>();
    for (let i = 0; i < 8; i++) {
      const e = (await create(s.t, `old-${i}`).expect(201)).body.data;
      secrets.set(e.id, e.secret);
    }
    const ds = s.t.app.get(DataSource);
    const [legacyId, legacySecret] = [...secrets][0];
    await ds.query('UPDATE webhook_endpoints SET secret_sealed = $1 WHERE id = $2', [SecretBox.fromBase64(oldKey).encrypt(legacySecret, `webhook_endpoint:${legacyId}`), legacyId]);

    after = await startControlTestApp('rotation_new', {
      ...s.idp.env,
      COSIGN_ISSUER,
      CONTROL_DATABASE_URL: s.t.settings.CONTROL_DATABASE_URL,
      CONTROL_SECRET_KEY: newKey,
      CONTROL_PREVIOUS_SECRET_KEYS: oldKey,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    // The redeployed replica loaded the cosigning keys sealed under the old key.
    expect((await after.app.get(CosignKeysService).publishedKids()).length).toBeGreaterThan(0);

    let stop = false;
    const statuses: number[] = [];
    const load = Promise.all(
      [0, 1, 2, 3].map(async (w) => {
        for (let i = 0; !stop; i++) {
          const res = await create(after, `new-${w}-${i}`);
          statuses.push(res.status);
          if (res.status === 201) secrets.set(res.body.data.id, res.body.data.secret);
        }
      }),
    );
    const report = await runControlAdmin(['rotate-secret-key', '--batch-size', '3'], ds, after.settings);
    stop = true;
    await load;

    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 201)).toBe(true);
    expect(report).toMatchObject({ kid: new RootKeys(newKey).currentId, unreadable: 0 });
    expect(report.resealed).toBeGreaterThanOrEqual(9);
    const newOnly = new RootKeys(newKey).sealedRows();
    for (const c of CONTROL_SEALED_COLUMNS) {
      const rows = await ds.query(`SELECT "${c.key[0]}"::text AS "${c.key[0]}", "${c.column}" AS sealed FROM "${c.table}" WHERE "${c.column}" IS NOT NULL`);
      for (const row of rows) {
        expect(sealedKeyId(row.sealed)).toBe(new RootKeys(newKey).currentId);
        const plain = newOnly.decrypt(row.sealed, c.aad(row));
        if (c.table === 'webhook_endpoints' && c.column === 'secret_sealed') expect(plain).toBe(secrets.get(row.id));
      }
    }
  });
});
