import request from 'supertest';
import { DataSource } from 'typeorm';
import { signPayload } from '@bursar/crypto';
import { suiteStack } from '@bursar/testing';
import { bearer } from '../control-fixtures';
import { BILLING_WEBHOOK_SECRET, startBillingTestStack } from './billing-test-stack';

const unix = () => Math.floor(Date.now() / 1000);

/** Sandbox allows 3 agents, 3 members and test agents only; paid plans lift that. Billing never gates authorization. */
describe('plan entitlements', () => {
  let eventSeq = 0;

  const s = suiteStack(() => startBillingTestStack('entitlements', { people: ['olga', 'p1', 'p2', 'p3', 'p4'], slug: 'capped' }));
  afterEach(() => {
    s.fake.mode = 'up';
  });

  const http = () => request(s.t.app.getHttpServer());
  const ws = '/control/v1/workspaces/capped';
  const newAgent = (body: object = {}) => http().post(`${ws}/agents`).set(bearer(s.tokens.olga)).send({ name: 'bot', ...body });
  const addMember = (sub: string) => http().post(`${ws}/memberships`).set(bearer(s.tokens.olga)).send({ user_sub: sub });
  const count = async (table: string) =>
    Number((await s.t.app.get(DataSource).query(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = $1`, [s.workspaceId]))[0].n);
  const expect422 = (res: request.Response, message: RegExp) => {
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({ message: expect.stringMatching(message), code: null, hint: expect.any(String) });
  };
  const subscriptionEvent = (type: string, status: string) => {
    const object = {
      id: 'sub_cap',
      customer: 'cus_cap',
      status,
      metadata: { workspace_id: s.workspaceId },
      items: { data: [{ id: 'si_cap', price: { id: 'price_build' } }] },
    };
    const body = JSON.stringify({ id: `evt_cap_${++eventSeq}`, type, created: unix(), data: { object } });
    return http().post('/control/v1/billing/webhooks').set('Content-Type', 'application/json').set('Stripe-Signature', signPayload(body, BILLING_WEBHOOK_SECRET)).send(body).expect(200);
  };

  it('refuses a live agent on the test-only sandbox plan with 422, writing nothing', async () => {
    const audits = await count('audit_events');
    expect422(await newAgent({ mode: 'live' }), /live mode/);
    expect(await count('agents')).toBe(0);
    expect(await count('audit_events')).toBe(audits);
  });

  it('caps agents at the plan limit under parallel creates, and a revoked agent frees its seat', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => newAgent()));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 422, 422]);
    expect422(results.find((r) => r.status === 422) as request.Response, /Sandbox plan allows 3 agents/);
    expect(await count('agents')).toBe(3);
    const revoked = results.find((r) => r.status === 201)?.body.data.id;
    await http().patch(`${ws}/agents/${revoked}`).set(bearer(s.tokens.olga)).send({ status: 'revoked' }).expect(200);
    await newAgent().expect(201);
    expect422(await newAgent(), /allows 3 agents/);
  });

  it('caps members on direct adds and on invitation accepts, and a refused invitation stays open', async () => {
    const invitation = (await http().post(`${ws}/invitations`).set(bearer(s.tokens.olga)).send({ email: 'p4@example.com' }).expect(201)).body.data;
    const results = await Promise.all(['p1', 'p2', 'p3'].map(addMember));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 422]);
    expect422(results.find((r) => r.status === 422) as request.Response, /Sandbox plan allows 3 members/);
    const accept = () => http().post('/control/v1/invitations/accept').set(bearer(s.tokens.p4)).send({ token: invitation.token });
    expect422(await accept(), /allows 3 members/);
    expect(await count('workspace_memberships')).toBe(3);
    await http().get(`/control/v1/invitations/lookup?token=${invitation.token}`).set(bearer(s.tokens.p4)).expect(200);
    const seated = (await http().get(`${ws}/memberships`).set(bearer(s.tokens.olga)).expect(200)).body.data;
    await http().delete(`${ws}/memberships/${seated[2].id}`).set(bearer(s.tokens.olga)).expect(204);
    expect((await accept().expect(201)).body).toEqual({ data: { workspace_slug: 'capped', role: 'member' } });
    // Full again: a second seat for someone already seated is refused for that reason, not the plan.
    expect422(await addMember('p4'), /already a member/);
  });

  it('reads entitlements from its own tables: a paid plan lifts them while the provider is down', async () => {
    await subscriptionEvent('customer.subscription.created', 'active');
    s.fake.mode = 'down';
    const live = (await newAgent({ mode: 'live' }).expect(201)).body.data;
    await addMember('p9').expect(201);
    expect(s.fake.calls).toHaveLength(0);
    const overview = (await http().get(`${ws}/billing`).set(bearer(s.tokens.olga)).expect(200)).body.data;
    expect(overview).toMatchObject({ plan: 'build', entitlements: { live_mode: true, agents: { used: 4, limit: 10 }, members: { used: 4, limit: 5 } } });

    // Back on sandbox: new live agents are refused, but the existing one is still authorized as before.
    await subscriptionEvent('customer.subscription.deleted', 'canceled');
    expect422(await newAgent({ mode: 'live' }), /live mode/);
    const budget = await http().post('/control/v1/agent/budgets').set(bearer(live.api_key)).send({ budget_cents: 5_000 }).expect(201);
    const action = await http()
      .post('/control/v1/agent/actions')
      .set(bearer(live.api_key))
      .set('Idempotency-Key', 'after-downgrade')
      .send({ budget_id: budget.body.data.id, action_type: 'search.run', cost_cents: 100 });
    expect(action.status).toBe(201);
    expect(action.body.decision.outcome).toBe('allowed');
  });

  it('documents the plan refusals, and that they never wait on the provider', async () => {
    const doc = (await http().get('/control/v1/openapi.json').expect(200)).body;
    for (const [path, method] of [
      ['/control/v1/workspaces/{workspace_slug}/agents', 'post'],
      ['/control/v1/workspaces/{workspace_slug}/memberships', 'post'],
      ['/control/v1/invitations/accept', 'post'],
    ]) {
      expect(doc.paths[path][method].responses['422'].description).toEqual(expect.stringContaining('no 503 billing_unavailable'));
    }
  });
});
