import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { SpendTokenExpiryService } from '../../src/spend-tokens/spend-token-expiry.service';
import { SpendTokensRepository } from '../../src/spend-tokens/spend-tokens.repository';
import { startWorkspaceStack } from '../control-test-app';
import { bearer, createAgent } from '../control-fixtures';

describe('spend tokens', () => {
  let key: string;
  let otherKey: string;
  let budgetId: string;

  const s = suiteStack(() => startWorkspaceStack('spend_tokens', { name: 'Tokens', slug: 'tokens' }, { owner: 'owner', viewer: 'member' }));
  beforeAll(async () => {
    key = (await createAgent(s.t.app, s.tokens.owner, 'tokens')).api_key;
    otherKey = (await createAgent(s.t.app, s.tokens.owner, 'tokens', { name: 'other' })).api_key;
    budgetId = (await http().post('/control/v1/agent/budgets').set(bearer(key)).send({ budget_cents: 10_000 }).expect(201)).body.data.id;
  });

  const http = () => request(s.t.app.getHttpServer());
  const mint = (body: Record<string, unknown>, as = key) => http().post('/control/v1/agent/spend_tokens').set(bearer(as)).send(body);

  it('mints an issued token against the agent’s own budget and audits it', async () => {
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const res = await mint({ budget_id: budgetId, amount_ceiling_cents: 2500, counterparty: 'acme.com', expires_at: expires }).expect(201);
    expect(res.body).toEqual({
      data: {
        id: expect.any(String),
        agent_id: expect.any(String),
        budget_id: budgetId,
        amount_ceiling_cents: 2500,
        counterparty: 'acme.com',
        expires_at: expires,
        single_use: true,
        status: 'issued',
        consumed_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const [event] = await s.t.app
      .get(DataSource)
      .query(`SELECT subject_type, action, actor_type, actor_id FROM audit_events WHERE subject_id = $1`, [res.body.data.id]);
    expect(event).toEqual({ subject_type: 'SpendToken', action: 'spend_token.issued', actor_type: 'agent', actor_id: res.body.data.agent_id });
    expect((await http().get(`/control/v1/agent/spend_tokens/${res.body.data.id}`).set(bearer(key)).expect(200)).body).toEqual(res.body);
  });

  it('defaults counterparty and expiry to null', async () => {
    const res = await mint({ budget_id: budgetId, amount_ceiling_cents: 1 }).expect(201);
    expect(res.body.data).toMatchObject({ counterparty: null, expires_at: null, status: 'issued' });
  });

  it.each([
    [{ budget_id: undefined, amount_ceiling_cents: 10 }, 400],
    [{ budget_id: 'nope', amount_ceiling_cents: 10 }, 422],
    [{ amount_ceiling_cents: 0 }, 422],
    [{ amount_ceiling_cents: 1.5 }, 422],
    [{ amount_ceiling_cents: '10' }, 422],
    [{ amount_ceiling_cents: 10, expires_at: 'tomorrow' }, 422],
    [{ amount_ceiling_cents: 10, counterparty: 7 }, 422],
    [{ amount_ceiling_cents: 10, surprise: true }, 422],
  ])('refuses malformed body %j with %i and a null code', async (body, status) => {
    const res = await mint({ budget_id: budgetId, ...body }).expect(status);
    expect(res.body.error).toEqual({ message: expect.any(String), code: null, hint: expect.any(String), param: expect.any(String), details: { fields: expect.any(Object) } });
  });

  it('refuses a past expiry and a closed budget with 422, writing nothing', async () => {
    const db = s.t.app.get(DataSource);
    const [{ n: before }] = await db.query(`SELECT count(*)::int AS n FROM spend_tokens`);
    await mint({ budget_id: budgetId, amount_ceiling_cents: 10, expires_at: new Date(Date.now() - 1000).toISOString() }).expect(422);
    const closed = (await http().post('/control/v1/agent/budgets').set(bearer(key)).send({ budget_cents: 100 }).expect(201)).body.data.id;
    await http().post(`/control/v1/agent/budgets/${closed}/close`).set(bearer(key)).expect(200);
    const res = await mint({ budget_id: closed, amount_ceiling_cents: 10 }).expect(422);
    expect(res.body.error.code).toBeNull();
    const [{ n: after }] = await db.query(`SELECT count(*)::int AS n FROM spend_tokens`);
    expect(after).toBe(before);
  });

  it('voids the unused tokens of a budget when it closes, and leaves spent or expired ones be', async () => {
    const db = s.t.app.get(DataSource);
    const budget = (await http().post('/control/v1/agent/budgets').set(bearer(key)).send({ budget_cents: 100 }).expect(201)).body.data.id;
    const soon = new Date(Date.now() + 60_000).toISOString();
    const [unused, expired, spent] = await Promise.all(
      [{}, { expires_at: soon }, {}].map(async (extra) => (await mint({ budget_id: budget, amount_ceiling_cents: 10, ...extra }).expect(201)).body.data.id),
    );
    await db.query(`UPDATE spend_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired]);
    await db.query(`UPDATE spend_tokens SET status = 'consumed', consumed_at = now() WHERE id = $1`, [spent]);
    await http().post(`/control/v1/agent/budgets/${budget}/close`).set(bearer(key)).expect(200);

    const status = async (id: string) => (await http().get(`/control/v1/workspaces/tokens/spend_tokens/${id}`).set(bearer(s.tokens.viewer)).expect(200)).body.data.status;
    expect([await status(unused), await status(expired), await status(spent)]).toEqual(['void', 'expired', 'consumed']);
    const events = await db.query(`SELECT subject_id, snapshot->>'status' AS status FROM audit_events WHERE action = 'spend_token.voided'`);
    expect(events).toEqual([{ subject_id: unused, status: 'void' }]);
  });

  it('answers 404 for another agent’s budget or token, and 401 without a key', async () => {
    await mint({ budget_id: budgetId, amount_ceiling_cents: 10 }, otherKey).expect(404);
    const mine = (await mint({ budget_id: budgetId, amount_ceiling_cents: 10 }).expect(201)).body.data.id;
    await http().get(`/control/v1/agent/spend_tokens/${mine}`).set(bearer(otherKey)).expect(404);
    expect((await http().post('/control/v1/agent/spend_tokens').send({}).expect(401)).body.error.code).toBe('runtime_key_required');
    await http().post('/control/v1/agent/spend_tokens').set(bearer(s.tokens.owner)).send({}).expect(401);
  });

  it('lets any member read tokens by budget, newest first, in pages', async () => {
    const other = (await http().post('/control/v1/agent/budgets').set(bearer(key)).send({ budget_cents: 500 }).expect(201)).body.data.id;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.unshift((await mint({ budget_id: other, amount_ceiling_cents: 5 + i }).expect(201)).body.data.id);
    const base = `/control/v1/workspaces/tokens/spend_tokens?budget_id=${other}`;
    const first = (await http().get(`${base}&limit=2`).set(bearer(s.tokens.viewer)).expect(200)).body;
    expect(first.data.map((x: { id: string }) => x.id)).toEqual(ids.slice(0, 2));
    expect(first).toMatchObject({ has_more: true, next_cursor: ids[1] });
    const second = (await http().get(`${base}&limit=2&starting_after=${first.next_cursor}`).set(bearer(s.tokens.viewer)).expect(200)).body;
    expect(second).toEqual({ data: [expect.objectContaining({ id: ids[2] })], has_more: false, next_cursor: null });
    const one = await http().get(`/control/v1/workspaces/tokens/spend_tokens/${ids[0]}`).set(bearer(s.tokens.viewer)).expect(200);
    expect(one.body.data).toMatchObject({ id: ids[0], budget_id: other, status: 'issued' });
    await http().get(`/control/v1/workspaces/tokens/spend_tokens/${budgetId}`).set(bearer(s.tokens.viewer)).expect(404);
    await http().get(`/control/v1/workspaces/tokens/spend_tokens?budget_id=x`).set(bearer(s.tokens.viewer)).expect(400);
  });

  it('reads an issued token past its expiry as expired', async () => {
    const id = (await mint({ budget_id: budgetId, amount_ceiling_cents: 10, expires_at: new Date(Date.now() + 60_000).toISOString() }).expect(201))
      .body.data.id;
    await s.t.app.get(DataSource).query(`UPDATE spend_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    expect((await http().get(`/control/v1/agent/spend_tokens/${id}`).set(bearer(key)).expect(200)).body.data.status).toBe('expired');
  });

  it('lets exactly one of 20 parallel consumers spend a token, and none once it expired', async () => {
    const token = (await mint({ budget_id: budgetId, amount_ceiling_cents: 100 }).expect(201)).body.data;
    const { workspace_id } = (await s.t.app.get(DataSource).query(`SELECT workspace_id FROM spend_tokens WHERE id = $1`, [token.id]))[0];
    const repo = s.t.app.get(SpendTokensRepository);
    const db = s.t.app.get(DataSource);
    const wins = await Promise.all(
      Array.from({ length: 20 }, () => db.transaction((em) => repo.consume(em, workspace_id, token.agent_id, token.id))),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(wins.find(Boolean)).toMatchObject({ id: token.id, status: 'consumed', consumed_at: expect.any(Date) });

    const stale = (await mint({ budget_id: budgetId, amount_ceiling_cents: 100, expires_at: new Date(Date.now() + 60_000).toISOString() }).expect(201))
      .body.data;
    await db.query(`UPDATE spend_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [stale.id]);
    expect(await db.transaction((em) => repo.consume(em, workspace_id, stale.agent_id, stale.id))).toBeNull();
  });

  it('sweeps expired unused tokens to expired once, with an audit event and a webhook event', async () => {
    const db = s.t.app.get(DataSource);
    const id = (await mint({ budget_id: budgetId, amount_ceiling_cents: 10, expires_at: new Date(Date.now() + 60_000).toISOString() }).expect(201))
      .body.data.id;
    const live = (await mint({ budget_id: budgetId, amount_ceiling_cents: 10, expires_at: new Date(Date.now() + 60_000).toISOString() }).expect(201))
      .body.data.id;
    await db.query(`UPDATE spend_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    const sweeper = s.t.app.get(SpendTokenExpiryService);
    const swept = await Promise.all([sweeper.sweep(), sweeper.sweep()]);
    expect(swept.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    const [row] = await db.query(`SELECT status FROM spend_tokens WHERE id = $1`, [id]);
    expect(row.status).toBe('expired');
    expect((await db.query(`SELECT status FROM spend_tokens WHERE id = $1`, [live]))[0].status).toBe('issued');
    const events = await db.query(`SELECT action, actor_type FROM audit_events WHERE subject_id = $1 AND action = 'spend_token.expired'`, [id]);
    expect(events).toEqual([{ action: 'spend_token.expired', actor_type: 'system' }]);
    const hooks = await db.query(`SELECT type FROM webhook_events WHERE type = 'spend_token.expired' AND data->>'id' = $1`, [id]);
    expect(hooks).toHaveLength(1);
    expect(await sweeper.sweep()).toBe(0);
  });
});
