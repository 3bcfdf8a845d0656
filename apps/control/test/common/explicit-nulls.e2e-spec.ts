import request from 'supertest';
import { suiteStack } from '@bursar/testing';
import { bearer, createWorkspace } from '../control-fixtures';
import { startIdentifiedTestApp } from '../control-test-app';

/** Optional fields sent as an explicit null, found by `pnpm fuzz` (answered 500 before). */
describe('explicit nulls in optional fields (control)', () => {

  const s = suiteStack(() => startIdentifiedTestApp('explicit_nulls', ['owner']));

  it('creates an agent with scopes null as unrestricted', async () => {
    const token = await s.idp.token('owner');
    await createWorkspace(s.t.app, token, { name: 'Nulls', slug: 'nulls' });
    const res = await request(s.t.app.getHttpServer()).post('/control/v1/workspaces/nulls/agents').set(bearer(token)).send({ name: 'buyer', scopes: null });
    expect(res.status).toBe(201);
    expect(res.body.data.scopes).toEqual([]);
  });

  it('creates an agent with status null as active, its default (the body pnpm fuzz sent, seed 777001)', async () => {
    const token = await s.idp.token('owner');
    const res = await request(s.t.app.getHttpServer()).post('/control/v1/workspaces/nulls/agents').set(bearer(token))
      .send({ name: 'string', mode: 'test', status: null, scopes: ['string'], max_budget_cents: 0, skip_starter_policy: false });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'active', mode: 'test', scopes: ['string'], max_budget_cents: 0 });
  });

  it('still takes null where the API declares it: max_budget_cents null is no ceiling', async () => {
    const token = await s.idp.token('owner');
    const res = await request(s.t.app.getHttpServer()).post('/control/v1/workspaces/nulls/agents').set(bearer(token)).send({ name: 'open', max_budget_cents: null });
    expect(res.status).toBe(201);
    expect(res.body.data.max_budget_cents).toBeNull();
  });
});
