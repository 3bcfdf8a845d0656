import { DataSource } from 'typeorm';
import request from 'supertest';
import { runLedgerAdmin } from '../../src/admin/ledger-admin';
import { CLIENT_SCOPES } from '../../src/oauth-clients/oauth-scopes';
import { accessToken, LedgerFixtures } from '../ledger-fixtures';
import { ledgerAppStack } from '../ledger-test-app';

describe('ledger:admin operator commands', () => {
  const t = ledgerAppStack('admin');
  let fx: LedgerFixtures;

  beforeAll(async () => {
    fx = LedgerFixtures.of(t);
  });

  it('creates an organization, a test ledger and a client, printing ids and the secret once', async () => {
    const organization = await fx.run('create-organization', '--name', 'Acme Books');
    expect(organization).toEqual({ object: 'organization', id: expect.any(String), name: 'Acme Books' });
    const ledger = await fx.run(
      'create-ledger', '--organization', String(organization.id), '--name', 'Main', '--mode', 'test',
    );
    expect(ledger).toMatchObject({ object: 'ledger', organization_id: organization.id, name: 'Main', mode: 'test' });

    const client = await fx.run(
      'create-client', '--organization', String(organization.id), '--ledger', String(ledger.id),
      '--mode', 'test', '--scopes', 'ledger:read,ledger:write',
    );
    expect(client).toMatchObject({
      object: 'oauth_client',
      id: expect.stringMatching(/^client_[A-Za-z0-9]+$/),
      mode: 'test',
      scopes: ['ledger:read', 'ledger:write'],
      ledger_id: ledger.id,
      organization_id: organization.id,
      active: true,
      client_secret: expect.stringMatching(/^sk_test_/),
    });
    expect(client.client_id).toBe(client.id);

    const [row] = await t.app
      .get(DataSource)
      .query('SELECT secret_digest FROM oauth_clients WHERE id = $1', [client.id]);
    expect(row.secret_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(String(client.client_secret));
  });

  it('creates a test ledger and a client holding every scope in one command (create-test-client)', async () => {
    const made = await runLedgerAdmin(['create-test-client', '--name', 'SDK examples'], t.app.get(DataSource), { publicUrl: 'http://localhost:3004' });
    expect(made).toMatchObject({
      ledger_id: expect.any(String),
      mode: 'test',
      client_id: expect.stringMatching(/^client_/),
      client_secret: expect.stringMatching(/^sk_test_/),
      scopes: [...CLIENT_SCOPES],
      base_url: 'http://localhost:3004',
      token_url: 'http://localhost:3004/oauth/token',
    });
    const client = { organizationId: String(made.organization_id), ledgerId: String(made.ledger_id), clientId: String(made.client_id), clientSecret: String(made.client_secret) };
    const token = await accessToken(t, client);
    const ledgers = await request(t.app.getHttpServer()).get('/ledger/v1/ledgers').auth(token, { type: 'bearer' }).expect(200);
    expect(ledgers.body.data).toEqual([expect.objectContaining({ id: made.ledger_id, mode: 'test' })]);
    const organization = await request(t.app.getHttpServer()).get('/ledger/v1/organizations/me').auth(token, { type: 'bearer' }).expect(200);
    expect(organization.body.data).toMatchObject({ id: made.organization_id, name: 'SDK examples' });
  });

  it('refuses a client on a ledger of the other mode or another organization', async () => {
    const organizationId = await fx.organization();
    const liveLedger = await fx.ledger(organizationId, 'live');
    await expect(
      fx.run('create-client', '--organization', organizationId, '--ledger', liveLedger, '--mode', 'test', '--scopes', 'ledger:read'),
    ).rejects.toThrow('No such ledger');
    const other = await fx.organization('Other');
    await expect(
      fx.run('create-client', '--organization', other, '--ledger', liveLedger, '--mode', 'live', '--scopes', 'ledger:read'),
    ).rejects.toThrow('No such ledger');
  });

  it.each([
    [['create-ledger', '--organization', 'nope', '--name', 'x', '--mode', 'test'], 'No such organization'],
    [['create-ledger', '--name', 'x', '--mode', 'test'], '--organization is required'],
    [['create-organization'], '--name is required'],
    [['create-client', '--organization', 'o', '--ledger', 'l', '--mode', 'prod', '--scopes', 'ledger:read'], '--mode must be test or live'],
    [['create-client', '--organization', 'o', '--ledger', 'l', '--mode', 'test', '--scopes', 'ledger:everything'], '--scopes must be'],
    [['drop-everything'], 'unknown command drop-everything'],
  ])('rejects %j', async (argv, message) => {
    await expect(fx.run(...argv)).rejects.toThrow(message);
  });
});
