import request from 'supertest';
import { DataSource } from 'typeorm';
import { signPayload } from '@bursar/crypto';
import { suiteStack } from '@bursar/testing';
import { ControlTestApp, startControlTestApp } from '../control-test-app';
import { bearer, createAgent, createWorkspace, seatMember } from '../control-fixtures';
import type { FakeSubscription } from '../billing-provider.fake';
import { BILLING_WEBHOOK_SECRET, startBillingTestStack } from './billing-test-stack';
import { BILLING_API_VERSION } from '../../src/billing/billing-provider.client';
import { startTestIdentityProvider, TestIdentityProvider } from '../test-identity-provider';

const unix = (ms = Date.now()) => Math.floor(ms / 1000);
const DAY = 86_400;

describe('billing', () => {
  let eventSeq = 0;

  const s = suiteStack(() => startBillingTestStack('billing', { people: ['olga', 'adam', 'mia', 'stranger'], slug: 'shop', env: { BILLING_TIMEOUT_MS: '300' } }));
  beforeAll(async () => {
    await seatMember(s.t.app, s.workspaceId, 'adam', 'admin');
    await seatMember(s.t.app, s.workspaceId, 'mia', 'member');
  });
  afterEach(() => {
    s.fake.mode = 'up';
  });

  const http = () => request(s.t.app.getHttpServer());
  const base = '/control/v1/workspaces/shop/billing';
  const post = (path: string, body: object = {}, as = 'olga') => http().post(`${base}${path}`).set(bearer(s.tokens[as])).send(body);
  const overview = async () => (await http().get(base).set(bearer(s.tokens.olga)).expect(200)).body.data;
  const lastCall = () => s.fake.calls[s.fake.calls.length - 1];
  const audits = async (action: string) =>
    (await http().get(`/control/v1/workspaces/shop/audit_events?action=${action}`).set(bearer(s.tokens.olga)).expect(200)).body.data as {
      subject_type: string;
      snapshot: Record<string, unknown>;
    }[];

  /** Delivers `body` exactly as given, signed (or not) the way the test says. */
  const deliver = (body: string, signature?: string) => {
    const req = http().post('/control/v1/billing/webhooks').set('Content-Type', 'application/json');
    return (signature === undefined ? req : req.set('Stripe-Signature', signature)).send(body);
  };
  const event = (type: string, object: object, created = unix()) =>
    // Pretty-printed on purpose: the HMAC must be checked over these exact bytes, not a re-serialisation.
    JSON.stringify({ id: `evt_${++eventSeq}`, type, created, data: { object } }, null, 2);
  const signed = (body: string, at = unix()) => deliver(body, signPayload(body, BILLING_WEBHOOK_SECRET, at));

  const fakeSub = () => s.fake.subscriptions.get('sub_1') as FakeSubscription;
  const subscription = (over: Partial<FakeSubscription>): FakeSubscription => ({
    id: 'sub_1',
    customer: 'cus_1',
    status: 'active',
    cancel_at_period_end: false,
    current_period_start: unix() - DAY,
    current_period_end: unix() + 29 * DAY,
    metadata: { workspace_id: s.workspaceId },
    items: { data: [{ id: 'si_1', price: { id: 'price_growth' } }] },
    ...over,
  });

  /** A payment authorization by the workspace's agent (its starter policy holds anything above 10000). */
  const pay = (amount_cents: number) =>
    http().post('/control/v1/agent/payment_intents').set(bearer(agentKey)).send({ budget_id: budgetId, amount_cents, counterparty: 'acme', idempotency_key: `pay-${++eventSeq}` });
  let agentKey: string;
  let budgetId: string;

  it('shows the sandbox overview with the period usage and the plan catalogue before anything is bought', async () => {
    agentKey = (await createAgent(s.t.app, s.tokens.olga, 'shop')).api_key;
    budgetId = (await http().post('/control/v1/agent/budgets').set(bearer(agentKey)).send({ budget_cents: 100_000 }).expect(201)).body.data.id;
    await pay(2_000).expect(201);
    await pay(20_000).expect(202);
    await http().post('/control/v1/agent/actions').set(bearer(agentKey)).set('Idempotency-Key', 'a-1').send({ budget_id: budgetId, action_type: 'search.run' }).expect(201);
    const data = await overview();
    const now = new Date();
    expect(data).toEqual({
      configured: true,
      plan: 'sandbox',
      subscription: null,
      entitlements: {
        agents: { limit: 3, used: 1, remaining: 2 },
        members: { limit: 3, used: 3, remaining: 0 },
        payment_authorizations: { limit: 1000, used: 2, remaining: 998 },
        action_authorizations: { limit: 10000, used: 1, remaining: 9999 },
        // Only the allowed payment passed the gate; the held one waits for a person.
        gated_volume: { limit: 100000, used: 2000, remaining: 98000 },
        live_mode: false,
        overage_cents: 0,
        audit_retention_days: 7,
        period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
        period_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      },
      prepaid: { units: 0, volume_cents: 0, used_cents: 0, remaining_cents: 0 },
      plans: expect.any(Array),
    });
    expect(data.plans.map((p: { id: string; purchasable: boolean }) => [p.id, p.purchasable])).toEqual([
      ['sandbox', false],
      ['build', true],
      ['growth', true],
      ['scale', true],
      ['enterprise', false],
    ]);
    expect(data.plans[2]).toMatchObject({ name: 'Growth', monthly_price_cents: 24900, live_mode: true, limits: { agents: 50 } });
  });

  it('lets every member read, keeps writes to manage_members, and hides the workspace from outsiders', async () => {
    await http().get(base).set(bearer(s.tokens.mia)).expect(200);
    for (const who of ['mia', 'adam']) {
      for (const path of ['/checkout', '/packs', '/portal', '/cancel', '/refresh']) {
        const res = await post(path, path === '/packs' ? { units: 1 } : { plan: 'build' }, who).expect(403);
        expect(res.body.error).toEqual({ message: expect.any(String), code: 'insufficient_role', hint: expect.any(String) });
      }
    }
    expect((await http().get(base).set(bearer(s.tokens.stranger)).expect(404)).body.error.code).toBeNull();
    await post('/checkout', { plan: 'build' }, 'stranger').expect(404);
    expect((await http().get(base).expect(401)).body.error.code).toBe('identity_token_required');
    expect(s.fake.calls).toHaveLength(0);
  });

  it('refuses bad checkout and pack bodies with 400 or 422, never a 5xx, and calls nobody', async () => {
    for (const body of [{ plan: 'gold' }, { plan: 7 }, { plan: 'build', email: 'nope' }, { plan: 'build', coupon: 'x' }]) {
      expect((await post('/checkout', body).expect(422)).body.error.code).toBeNull();
    }
    await post('/checkout', { plan: 'sandbox' }).expect(422);
    await post('/checkout', { plan: 'enterprise' }).expect(422);
    for (const units of [0, 201, 1.5, '3', null]) await post('/packs', { units }).expect(422);
    await post('/packs', {}).expect(400);
    await http().post(`${base}/checkout`).set(bearer(s.tokens.olga)).set('Content-Type', 'application/json').send('{"plan":').expect(400);
    await post('/portal').expect(422);
    await post('/cancel').expect(422);
    expect(s.fake.calls).toHaveLength(0);
  });

  it('answers 503 billing_unavailable with Retry-After when the provider is down or too slow, writing nothing', async () => {
    for (const mode of ['down', 'hang'] as const) {
      s.fake.mode = mode;
      const res = await post('/checkout', { plan: 'growth' }).expect(503);
      expect(res.body.error).toEqual({ message: expect.any(String), code: 'billing_unavailable', hint: expect.any(String) });
      expect(res.headers['retry-after']).toBe('30');
      expect((await post('/packs', { units: 2 }).expect(503)).body.error.code).toBe('billing_unavailable');
    }
    expect(await audits('billing.checkout.started')).toHaveLength(0);
    const [{ n }] = await s.t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM billing_checkouts`);
    expect(n).toBe(0);
    // The overview is local state and authorization never asks billing: both go on while the provider is away.
    s.fake.mode = 'down';
    expect((await overview()).plan).toBe('sandbox');
    await pay(1_000).expect(201);
  });

  let checkoutId: string;

  it('starts a hosted checkout for the chosen plan and audits it', async () => {
    const res = await post('/checkout', { plan: 'growth', email: 'billing@shop.example' }).expect(201);
    expect(res.body).toEqual({ data: { checkout_url: expect.stringMatching(/^https:\/\/checkout\.fake\//), checkout_id: expect.any(String), plan: 'growth' } });
    checkoutId = res.body.data.checkout_id;
    expect(lastCall()).toMatchObject({
      method: 'POST',
      path: '/v1/checkout/sessions',
      authorization: `Bearer ${s.fake.apiKey}`,
      form: {
        mode: 'subscription',
        'line_items[0][price]': 'price_growth',
        'line_items[0][quantity]': '1',
        customer_email: 'billing@shop.example',
        client_reference_id: s.workspaceId,
        'metadata[workspace_id]': s.workspaceId,
      },
    });
    const [audit] = await audits('billing.checkout.started');
    expect(audit).toMatchObject({ subject_type: 'Subscription', snapshot: { checkout_id: checkoutId, plan: 'growth' } });
    // Starting a checkout changes no plan until the provider says it was paid.
    expect((await overview()).plan).toBe('sandbox');
    // With no plan named (the contract's body is only `email`) an unsubscribed workspace is offered build.
    expect((await post('/checkout', {}).expect(201)).body.data.plan).toBe('build');
  });

  it('calls the provider through its SDK: pinned API version, and one idempotency key per request that a retry reuses', async () => {
    const before = s.fake.calls.length;
    const countBefore = (await audits('billing.checkout.started')).length;
    const retry = () => post('/checkout', { plan: 'scale' }).set('X-Request-Id', 'req_billing_retry_1').expect(201);
    const first = await retry();
    const second = await retry();
    const other = await post('/checkout', { plan: 'scale' }).expect(201);
    const calls = s.fake.calls.slice(before);
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions', stripeVersion: BILLING_API_VERSION, idempotencyKey: expect.stringMatching(/^bursar-checkout-/) });
    }
    // The retried request reused its key, so the provider answered with the same session...
    expect(calls[1].idempotencyKey).toBe(calls[0].idempotencyKey);
    expect(second.body.data.checkout_id).toBe(first.body.data.checkout_id);
    // ...which is recorded and audited once; a new request is a new checkout.
    expect(calls[2].idempotencyKey).not.toBe(calls[0].idempotencyKey);
    expect(other.body.data.checkout_id).not.toBe(first.body.data.checkout_id);
    expect(await audits('billing.checkout.started')).toHaveLength(countBefore + 2);
  });

  describe('inbound webhooks', () => {
    it('refuses missing, malformed, wrong, tampered and stale signatures with 401 invalid_signature', async () => {
      const body = event('checkout.session.completed', { id: checkoutId, customer: 'cus_1', subscription: 'sub_1', payment_status: 'paid' });
      const cases = [
        deliver(body),
        deliver(body, 'garbage'),
        deliver(body, signPayload(body, 'whsec_someone_else')),
        deliver(body.replace('"paid"', '"unpaid"'), signPayload(body, BILLING_WEBHOOK_SECRET)),
        deliver(body, signPayload(body, BILLING_WEBHOOK_SECRET, unix() - 301)),
        deliver(body, signPayload(body, BILLING_WEBHOOK_SECRET, unix() + 301)),
      ];
      for (const res of await Promise.all(cases)) {
        expect(res.status).toBe(401);
        expect(res.body.error).toEqual({ message: expect.any(String), code: 'invalid_signature', hint: expect.any(String) });
      }
      expect((await overview()).plan).toBe('sandbox');
    });

    it('answers 400 to a signed body that is not an event and acknowledges unknown event types', async () => {
      await signed('not json').expect(400);
      await signed(JSON.stringify({ type: 'x', data: { object: {} } })).expect(400);
      await signed(JSON.stringify({ id: 'evt_x', type: 'x', created: 1e30, data: { object: {} } })).expect(400);
      // Keeping the raw bytes leaves the body-size limit in force.
      const huge = JSON.stringify({ id: 'evt_big', type: 'x', data: { object: { pad: 'x'.repeat(1_100_000) } } });
      expect((await signed(huge).expect(400)).body.error.code).toBeNull();
      const res = await signed(event('invoice.paid', { id: 'in_1' })).expect(200);
      expect(res.body.data).toEqual({ id: expect.any(String), type: 'invoice.paid', duplicate: false, ignored: false });
    });

    it('applies a completed checkout once, however often and concurrently it is delivered', async () => {
      const body = event('checkout.session.completed', { id: checkoutId, customer: 'cus_1', subscription: 'sub_1', payment_status: 'paid' });
      const signature = signPayload(body, BILLING_WEBHOOK_SECRET);
      const results = await Promise.all(Array.from({ length: 5 }, () => deliver(body, signature)));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(results.filter((r) => r.body.data.duplicate === false)).toHaveLength(1);
      const data = await overview();
      expect(data.plan).toBe('growth');
      expect(data.subscription).toMatchObject({ id: 'sub_1', status: 'active', plan: 'growth', cancel_at_period_end: false });
      expect(data.entitlements).toMatchObject({ live_mode: true, audit_retention_days: 90, agents: { limit: 50, used: 1, remaining: 49 } });
      const changes = await audits('billing.plan.changed');
      expect(changes).toHaveLength(1);
      expect(changes[0].snapshot).toMatchObject({ plan: 'growth', previous_plan: 'sandbox' });
    });

    it('follows subscription updates, ignoring ones older than the state applied', async () => {
      const start = unix() - 2 * DAY;
      const end = unix() + 28 * DAY;
      s.fake.subscriptions.set('sub_1', subscription({ current_period_start: start, current_period_end: end }));
      const update = subscription({ current_period_start: start, current_period_end: end, items: { data: [{ id: 'si_1', price: { id: 'price_scale' } }] } });
      await signed(event('customer.subscription.updated', update)).expect(200);
      let data = await overview();
      expect(data.plan).toBe('scale');
      expect(data.entitlements.period_start).toBe(new Date(start * 1000).toISOString());
      expect(data.entitlements.period_end).toBe(new Date(end * 1000).toISOString());
      const stale = subscription({ status: 'past_due', items: { data: [{ id: 'si_1', price: { id: 'price_build' } }] } });
      await signed(event('customer.subscription.updated', stale, unix() - 3600)).expect(200);
      data = await overview();
      expect(data).toMatchObject({ plan: 'scale', subscription: { status: 'active' } });
      // Put the s.fake back in line with what the workspace now holds.
      fakeSub().items.data[0].price.id = 'price_scale';
    });

    it('acknowledges and ignores a checkout that would hand another workspace the subscription shop holds', async () => {
      await createWorkspace(s.t.app, s.tokens.olga, { name: 'Other', slug: 'other' });
      const started = await http().post('/control/v1/workspaces/other/billing/checkout').set(bearer(s.tokens.olga)).send({ plan: 'build' }).expect(201);
      const body = event('checkout.session.completed', { id: started.body.data.checkout_id, customer: 'cus_2', subscription: 'sub_1', payment_status: 'paid' });
      const res = await signed(body).expect(200);
      expect(res.body.data).toMatchObject({ duplicate: false, ignored: true });
      // Recorded, so the provider's redelivery is a plain duplicate; nothing moved in either workspace.
      expect((await deliver(body, signPayload(body, BILLING_WEBHOOK_SECRET)).expect(200)).body.data).toMatchObject({ duplicate: true, ignored: false });
      const other = (await http().get('/control/v1/workspaces/other/billing').set(bearer(s.tokens.olga)).expect(200)).body.data;
      expect(other).toMatchObject({ plan: 'sandbox', subscription: null });
      expect((await overview()).subscription).toMatchObject({ id: 'sub_1', plan: 'scale' });
      const [checkout] = await s.t.app.get(DataSource).query(`SELECT status FROM billing_checkouts WHERE id = $1`, [started.body.data.checkout_id]);
      expect(checkout.status).toBe('open');
    });
  });

  it('changes the plan in place for a subscribed workspace', async () => {
    const res = await post('/checkout', { plan: 'build' }).expect(201);
    expect(res.body).toEqual({ data: { plan_changed: true, plan: 'build', status: 'active' } });
    expect(lastCall()).toMatchObject({ method: 'POST', path: '/v1/subscriptions/sub_1', form: { 'items[0][id]': 'si_1', 'items[0][price]': 'price_build' } });
    expect((await overview()).plan).toBe('build');
    const calls = s.fake.calls.length;
    expect((await post('/checkout', { plan: 'build' }).expect(201)).body.data).toEqual({ plan_changed: false, plan: 'build', status: 'active' });
    expect(s.fake.calls).toHaveLength(calls);
    expect((await audits('billing.plan.changed'))[0].snapshot).toMatchObject({ plan: 'build', previous_plan: 'scale' });
  });

  it('sells prepaid packs that widen the period allowance once paid', async () => {
    const res = await post('/packs', { units: 5 }).expect(201);
    expect(res.body).toEqual({ data: { checkout_url: expect.any(String), checkout_id: expect.any(String), units: 5, volume_cents: 500000 } });
    expect(lastCall().form).toMatchObject({ mode: 'payment', 'line_items[0][price]': 'price_pack', 'line_items[0][quantity]': '5', customer: 'cus_1' });
    expect(await audits('billing.pack.started')).toHaveLength(1);
    const packId = res.body.data.checkout_id;
    // Paid by a delayed method: completion alone changes nothing; the async success applies it.
    await signed(event('checkout.session.completed', { id: packId, mode: 'payment', payment_status: 'unpaid' })).expect(200);
    expect((await overview()).prepaid.units).toBe(0);
    await signed(event('checkout.session.async_payment_succeeded', { id: packId, mode: 'payment', payment_status: 'paid' })).expect(200);
    const data = await overview();
    expect(data.prepaid).toEqual({ units: 5, volume_cents: 500000, used_cents: 0, remaining_cents: 500000 });
    expect(data.entitlements.gated_volume).toEqual({ limit: 5_000_000 + 500_000, used: 3_000, remaining: 5_497_000 });
  });

  it('opens the customer portal for a billed workspace', async () => {
    const res = await post('/portal').expect(200);
    expect(res.body).toEqual({ data: { portal_url: 'https://portal.fake/cus_1' } });
    s.fake.mode = 'hang';
    expect((await post('/portal').expect(503)).body.error.code).toBe('billing_unavailable');
  });

  it('refreshes from the provider and cancels at period end', async () => {
    fakeSub().status = 'past_due';
    fakeSub().items.data[0].price.id = 'price_build';
    let res = await post('/refresh').expect(200);
    expect(res.body.data).toMatchObject({ plan: 'build', subscription: { status: 'past_due' } });
    s.fake.mode = 'down';
    expect((await post('/refresh').expect(503)).body.error.code).toBe('billing_unavailable');
    expect((await post('/cancel').expect(503)).body.error.code).toBe('billing_unavailable');
    s.fake.mode = 'up';
    res = await post('/cancel').expect(200);
    expect(res.body.data).toMatchObject({ plan: 'build', subscription: { id: 'sub_1', cancel_at_period_end: true } });
    expect(lastCall()).toMatchObject({ path: '/v1/subscriptions/sub_1', form: { cancel_at_period_end: 'true' } });
    expect(await audits('billing.subscription.cancel_requested')).toHaveLength(1);
    // Choosing the same plan again before the period ends keeps the subscription.
    expect((await post('/checkout', { plan: 'build' }).expect(201)).body.data).toEqual({ plan_changed: false, plan: 'build', status: 'past_due' });
    expect(lastCall().form).toMatchObject({ cancel_at_period_end: 'false' });
    expect((await overview()).subscription.cancel_at_period_end).toBe(false);
  });

  it('returns the workspace to sandbox when the provider deletes the subscription', async () => {
    await signed(event('customer.subscription.deleted', subscription({ status: 'canceled' }))).expect(200);
    const data = await overview();
    expect(data).toMatchObject({ plan: 'sandbox', subscription: null, entitlements: { live_mode: false } });
    expect((await audits('billing.plan.changed'))[0].snapshot).toMatchObject({ plan: 'sandbox', previous_plan: 'build' });
    // Still a known customer, so the portal (invoices) stays reachable.
    await post('/portal').expect(200);
  });

  it('exports the billing records with the workspace, and no credential', async () => {
    const doc = (await http().get('/control/v1/workspaces/shop/export').set(bearer(s.tokens.olga)).expect(200)).body.data;
    expect(doc.counts).toMatchObject({ billing_accounts: 1, billing_checkouts: doc.billing_checkouts.length, billing_events: doc.billing_events.length });
    expect(doc.billing_accounts[0]).toMatchObject({ workspace_id: s.workspaceId, plan: 'sandbox', customer_id: 'cus_1' });
    expect(doc.billing_checkouts.map((c: { kind: string; status: string }) => [c.kind, c.status])).toEqual(
      expect.arrayContaining([
        ['subscription', 'completed'],
        ['pack', 'completed'],
      ]),
    );
    expect(doc.billing_events.length).toBeGreaterThan(3);
    expect(doc.billing_events.every((e: { workspace_id: string }) => e.workspace_id === s.workspaceId)).toBe(true);
    const text = JSON.stringify(doc);
    for (const secret of [BILLING_WEBHOOK_SECRET, s.fake.apiKey]) expect(text).not.toContain(secret);
  });

  it('documents the routes and the webhook payload in OpenAPI', async () => {
    const doc = (await http().get('/control/v1/openapi.json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/control/v1/workspaces/{workspace_slug}/billing',
        '/control/v1/workspaces/{workspace_slug}/billing/checkout',
        '/control/v1/billing/webhooks',
      ]),
    );
    expect(doc.components.schemas.BillingEventSchema.required).toEqual(expect.arrayContaining(['id', 'type', 'data']));
  });
});

describe('billing without a provider', () => {
  let idp: TestIdentityProvider;
  let t: ControlTestApp;

  beforeAll(async () => {
    idp = await startTestIdentityProvider(['olga']);
    t = await startControlTestApp('billing_off', idp.env);
    await createWorkspace(t.app, await idp.token('olga'), { name: 'Off', slug: 'off' });
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  it('reports configured false with unlimited live entitlements, refuses billing writes with 503 and every webhook with 401', async () => {
    const token = await idp.token('olga');
    const http = () => request(t.app.getHttpServer());
    const overview = await http().get('/control/v1/workspaces/off/billing').set(bearer(token)).expect(200);
    // Nothing is sold, so nobody is held to a plan: limits are null and live agents are allowed.
    expect(overview.body.data).toMatchObject({ configured: false, plan: 'enterprise', entitlements: { live_mode: true, agents: { limit: null }, members: { limit: null } } });
    await createAgent(t.app, token, 'off', { mode: 'live' });
    expect(overview.body.data.plans.every((p: { purchasable: boolean }) => !p.purchasable)).toBe(true);
    for (const path of ['checkout', 'portal', 'cancel', 'refresh']) {
      const res = await http().post(`/control/v1/workspaces/off/billing/${path}`).set(bearer(token)).send({}).expect(503);
      expect(res.body.error.code).toBe('billing_unavailable');
    }
    const body = JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: { object: {} } });
    const res = await http().post('/control/v1/billing/webhooks').set('Stripe-Signature', signPayload(body, 'anything')).set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_signature');
  });
});
