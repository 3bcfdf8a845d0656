import { ledgerApi } from '../ledger-api-client';
import { accessToken } from '../ledger-fixtures';
import { booksStack } from '../books-api';

const CLIENT_ADMIN = ['ledger:read', 'ledger:write', 'ledger:clients:write'];

describe('Capabilities, tenant suspension and plans', () => {
  const stack = booksStack('capabilities', { scopes: CLIENT_ADMIN });
  const api = ledgerApi(stack);

  it('describes features, limits, plan, tenant status and the organization model', async () => {
    const res = await api.get('/_meta/capabilities').expect(200);
    expect(res.body.data).toMatchObject({
      object: 'capabilities',
      api_version: 'v1',
      release: expect.any(String),
      ledger_capabilities_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      engine: expect.any(String),
      tenant_status: 'active',
      plan: 'free',
      live_mode: true,
      features: { idempotency_keys: true, self_service_live_clients: false, reconciliation: true },
      organization_model: { hierarchy: ['organization', 'ledger'], many_ledgers_per_org: true, modes_per_org: ['test', 'live'], mode_lives_on: 'ledger' },
      conditional_posting: { error_code_on_mismatch: 'precondition_failed' },
      limits: { rate_reads_per_second: 100000, page_max_limit: 200, postings_page_max_limit: 500 },
      money_representation: { unit: 'minor', rounding: 'never' },
      time: { clock: 'utc' },
      reconciliation: { available: true, strategies: ['external_ref', 'exact', 'sum_in_window'] },
      pagination: { style: 'cursor', default_limit: 50, max_limit: 200 },
      auth: { scheme: 'oauth2', algorithm: 'HS256', grant_types: ['client_credentials'] },
    });
  });

  it('makes a suspended tenant read-only: writes 403 tenant_suspended, reads and capabilities still answer', async () => {
    await stack.fx.run('suspend-organization', '--organization', stack.client.organizationId);
    const write = await api.patch(`/ledgers/${stack.client.ledgerId}`, { name: 'x' }).expect(403);
    expect(write.body.error).toMatchObject({ code: 'tenant_suspended', details: { suspended_at: expect.any(String) } });
    await api.post('/ledgers', { name: 'y', mode: 'test' }).expect(403);
    await api.get(`/ledgers/${stack.client.ledgerId}`).expect(200);
    expect((await api.get('/_meta/capabilities').expect(200)).body.data.tenant_status).toBe('suspended');
    // Other organizations are unaffected.
    const other = await stack.fx.client({ scopes: CLIENT_ADMIN });
    await ledgerApi({ t: stack.t, token: await accessToken(stack.t, other) }).patch(`/ledgers/${other.ledgerId}`, { name: 'fine' }).expect(200);

    await stack.fx.run('unsuspend-organization', '--organization', stack.client.organizationId);
    await api.patch(`/ledgers/${stack.client.ledgerId}`, { name: 'back' }).expect(200);
  });

  it('gates self-service live clients behind a paid plan with 402 plan_required', async () => {
    const live = await stack.fx.client({ mode: 'live', scopes: CLIENT_ADMIN, organizationId: stack.client.organizationId });
    const liveApi = ledgerApi({ t: stack.t, token: await accessToken(stack.t, live) });
    const body = { name: 'Go live', mode: 'live', scopes: ['ledger:read'], ledger_id: live.ledgerId };
    const refused = await liveApi.post('/oauth_clients', body).expect(402);
    expect(refused.body.error).toMatchObject({ code: 'plan_required', details: { plan: 'free' } });
    expect(refused.body.livemode).toBe(true);

    await stack.fx.run('set-plan', '--organization', stack.client.organizationId, '--plan', 'growth');
    await liveApi.post('/oauth_clients', body).expect(201);
    expect((await api.get('/_meta/capabilities')).body.data).toMatchObject({ plan: 'growth', features: { self_service_live_clients: true } });
  });

  it('refuses unknown admin plans and organizations', async () => {
    await expect(stack.fx.run('set-plan', '--organization', stack.client.organizationId, '--plan', 'platinum')).rejects.toThrow(/--plan/);
    await expect(stack.fx.run('suspend-organization', '--organization', '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'not_found' });
  });
});
