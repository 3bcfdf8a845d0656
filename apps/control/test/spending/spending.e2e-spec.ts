import request from 'supertest';
import { bearer, seatMember } from '../control-fixtures';
import { act, agentWithPolicy, DecisionStack, pay, startDecisionStack } from '../decision-fixtures';

describe('GET /control/v1/workspaces/:slug/spending', () => {
  let s: DecisionStack;
  const get = (query: Record<string, string> = {}, token = s.owner) =>
    request(s.t.app.getHttpServer()).get(`/control/v1/workspaces/${s.slug}/spending`).query(query).set(bearer(token));

  beforeAll(async () => {
    s = await startDecisionStack('spending');
    const shopper = await agentWithPolicy(s, { per_transaction_cap_cents: 10_000, approval_threshold_cents: 5_000 });
    const caller = await agentWithPolicy(s, { rules: [{ kind: 'rate_limit', max_actions: 1, window_seconds: 3600, rule_name: 'one_call' }] }, 100_000, { name: 'caller' });
    expect((await pay(s.t.app, shopper, { amount_cents: 1_000, counterparty: 'a.example' })).status).toBe(201);
    expect((await pay(s.t.app, shopper, { amount_cents: 2_000, counterparty: 'a.example' })).status).toBe(201);
    expect((await pay(s.t.app, shopper, { amount_cents: 6_000, counterparty: 'a.example' })).status).toBe(202);
    expect((await pay(s.t.app, shopper, { amount_cents: 20_000, counterparty: 'a.example' })).status).toBe(403);
    expect((await act(s.t.app, caller, { action_type: 'llm.call', cost_cents: 300 })).status).toBe(201);
    expect((await act(s.t.app, caller, { action_type: 'llm.call', cost_cents: 400 })).status).toBe(403);
  });
  afterAll(() => s.close());

  it('adds up the decisions by outcome in total, per day, per agent and per deciding rule', async () => {
    const { body } = await get().expect(200);
    const d = body.data;
    expect(d.granularity).toBe('day');
    expect(Date.parse(d.to) - Date.parse(d.from)).toBe(30 * 86_400_000);
    expect(d.totals).toEqual(
      expect.arrayContaining([
        { outcome: 'allowed', currency: 'USD', count: 3, amount_cents: 3_300 },
        { outcome: 'requires_approval', currency: 'USD', count: 1, amount_cents: 6_000 },
        { outcome: 'denied', currency: 'USD', count: 2, amount_cents: 20_400 },
      ]),
    );
    expect(d.totals).toHaveLength(3);
    const today = new Date(new Date().toISOString().slice(0, 10)).toISOString();
    expect(d.timeline.every((b: { bucket: string }) => b.bucket === today)).toBe(true);
    expect(d.timeline).toHaveLength(3);
    expect(d.agents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ agent_name: 'caller', outcome: 'denied', count: 1, amount_cents: 400 }),
        expect.objectContaining({ agent_name: 'buyer', outcome: 'allowed', count: 2, amount_cents: 3_000 }),
      ]),
    );
    expect(d.rules).toEqual([
      { rule: 'approval_threshold', outcome: 'requires_approval', currency: 'USD', count: 1, amount_cents: 6_000 },
      { rule: 'one_call', outcome: 'denied', currency: 'USD', count: 1, amount_cents: 400 },
      { rule: 'per_transaction_cap', outcome: 'denied', currency: 'USD', count: 1, amount_cents: 20_000 },
    ]);
  });

  it('buckets per hour and counts only the range asked for', async () => {
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const hourly = (await get({ granularity: 'hour', from: new Date(Date.now() - 86_400_000).toISOString(), to }).expect(200)).body.data;
    expect(hourly.timeline.length).toBeGreaterThanOrEqual(3);
    expect(hourly.timeline.every((b: { bucket: string }) => b.bucket.endsWith(':00:00.000Z'))).toBe(true);
    const past = (await get({ from: '2020-01-01T00:00:00Z', to: '2020-02-01T00:00:00Z' }).expect(200)).body.data;
    expect(past).toMatchObject({ totals: [], timeline: [], agents: [], rules: [] });
  });

  it('reads the same figures from the day and hour rollups as from the intents', async () => {
    const day = 86_400_000;
    const hour = 3_600_000;
    const today = Math.floor(Date.now() / day) * day;
    const thisHour = Math.floor(Date.now() / hour) * hour;
    const sorted = (d: { totals: { outcome: string }[] }) => [...d.totals].sort((a, b) => a.outcome.localeCompare(b.outcome));
    // Whole days around now (day rows), whole hours around now (hour rows), and a range ending now (intents at its edge).
    const days = (await get({ from: new Date(today - 2 * day).toISOString(), to: new Date(today + 2 * day).toISOString() }).expect(200)).body.data;
    const hours = (await get({ granularity: 'hour', from: new Date(thisHour - 2 * hour).toISOString(), to: new Date(thisHour + 3 * hour).toISOString() }).expect(200)).body.data;
    const edge = (await get().expect(200)).body.data;
    expect(sorted(days)).toEqual(sorted(edge));
    expect(sorted(hours)).toEqual(sorted(edge));
    expect(days.rules).toEqual(edge.rules);
    expect(hours.agents).toEqual(expect.arrayContaining(edge.agents));
  });

  it('refuses a bad range in the envelope, naming the field', async () => {
    const backwards = await get({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }).expect(422);
    expect(backwards.body.error).toMatchObject({ code: null, param: 'from' });
    const tooLong = await get({ granularity: 'hour', from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z' }).expect(422);
    expect(tooLong.body.error).toMatchObject({ param: 'from' });
    const notADate = await get({ from: 'yesterday' }).expect(400);
    expect(notADate.body.error).toMatchObject({ code: null, param: 'from', details: { fields: { from: [expect.any(String)] } } });
    expect((await get({ granularity: 'week' }).expect(400)).body.error.param).toBe('granularity');
  });

  it('is readable by a member and by no one outside the workspace', async () => {
    const member = await s.idp.token('member');
    await get({}, member).expect(404);
    await seatMember(s.t.app, s.workspaceId, 'member', 'member');
    expect((await get({}, member).expect(200)).body.data.totals).toHaveLength(3);
  });
});
