import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { startIdentifiedTestApp } from '../control-test-app';
import { bearer, createAgent, createWorkspace } from '../control-fixtures';

interface BudgetBody {
  id: string;
  budget_cents: number;
  spent_cents: number;
  remaining_cents: number;
  status: string;
}

describe('agent budgets', () => {
  let key: string;
  let otherKey: string;

  const s = suiteStack(() => startIdentifiedTestApp('budgets', ['owner']));
  beforeAll(async () => {
    const owner = await s.idp.token('owner');
    await createWorkspace(s.t.app, owner, { name: 'Budgets', slug: 'budgets' });
    key = (await createAgent(s.t.app, owner, 'budgets', { max_budget_cents: 1_000_000 })).api_key;
    otherKey = (await createAgent(s.t.app, owner, 'budgets')).api_key;
  });

  const http = () => request(s.t.app.getHttpServer());
  const open = (body: Record<string, unknown>, as = key) =>
    http().post('/control/v1/agent/budgets').set(bearer(as)).send(body);
  const read = async (id: string, as = key) =>
    (await http().get(`/control/v1/agent/budgets/${id}`).set(bearer(as)).expect(200)).body.data as BudgetBody;
  const close = (id: string, as = key) => http().post(`/control/v1/agent/budgets/${id}/close`).set(bearer(as));

  it('opens a budget in USD by default and reads it back', async () => {
    const res = await open({ budget_cents: 5000 }).expect(201);
    expect(res.body).toEqual({
      data: {
        id: expect.any(String),
        agent_id: expect.any(String),
        parent_budget_id: null,
        budget_cents: 5000,
        spent_cents: 0,
        remaining_cents: 5000,
        currency: 'USD',
        status: 'active',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(await read(res.body.data.id)).toEqual(res.body.data);
    const [event] = await s.t.app.get(DataSource).query(`SELECT subject_type, action FROM audit_events WHERE subject_id = $1`, [
      res.body.data.id,
    ]);
    expect(event).toEqual({ subject_type: 'Session', action: 'session.created' });
  });

  it("refuses a budget above the agent's ceiling with both figures", async () => {
    const res = await open({ budget_cents: 1_000_001 }).expect(422);
    expect(res.body).toEqual({
      error: { message: expect.any(String), code: 'budget_ceiling', hint: expect.any(String), ceiling_cents: 1_000_000, requested_cents: 1_000_001 },
    });
  });

  // The reference's codeless statuses: 400 for a missing field, 422 for a present value that is wrong.
  it.each([
    [{}, 400],
    [{ budget_cents: 0 }, 422],
    [{ budget_cents: '10' }, 422],
    [{ budget_cents: 1.5 }, 422],
    [{ budget_cents: 10, currency: 'usd' }, 422],
    [{ budget_cents: 10, parent_budget_id: 'nope' }, 422],
  ])('refuses %j with %i and a null code', async (body, status) => {
    expect((await open(body).expect(status)).body.error.code).toBeNull();
  });

  it('reserves a child from its parent, refuses one larger than what is left, and returns headroom on close', async () => {
    const parent = (await open({ budget_cents: 1000 }).expect(201)).body.data as BudgetBody;
    const child = (await open({ budget_cents: 600, parent_budget_id: parent.id }).expect(201)).body.data as BudgetBody;
    expect((await read(parent.id)).remaining_cents).toBe(400);

    const refused = await open({ budget_cents: 401, parent_budget_id: parent.id }).expect(422);
    expect(refused.body).toEqual({ error: { message: expect.any(String), code: 'parent_budget_exhausted', ceiling_cents: 400, hint: expect.any(String) } });

    const rest = (await open({ budget_cents: 400, parent_budget_id: parent.id }).expect(201)).body.data as BudgetBody;
    expect(await read(parent.id)).toMatchObject({ remaining_cents: 0, status: 'exhausted' });

    expect((await close(parent.id).expect(422)).body.error.code).toBeNull();
    const closed = (await close(child.id).expect(200)).body.data as BudgetBody;
    expect(closed).toMatchObject({ status: 'closed', remaining_cents: 600 });
    expect(await read(parent.id)).toMatchObject({ remaining_cents: 600, status: 'active' });
    // Closing again gives nothing back twice.
    await close(child.id).expect(200);
    expect((await read(parent.id)).remaining_cents).toBe(600);

    await close(rest.id).expect(200);
    await close(parent.id).expect(200);
    expect((await open({ budget_cents: 1, parent_budget_id: parent.id }).expect(422)).body.error.code).toBeNull();
  });

  it("keeps an agent out of another agent's budgets with 404", async () => {
    const mine = (await open({ budget_cents: 100 }).expect(201)).body.data as BudgetBody;
    await http().get(`/control/v1/agent/budgets/${mine.id}`).set(bearer(otherKey)).expect(404);
    await close(mine.id, otherKey).expect(404);
    await open({ budget_cents: 10, parent_budget_id: mine.id }, otherKey).expect(404);
    await http().get(`/control/v1/agent/budgets/00000000-0000-4000-8000-000000000000`).set(bearer(key)).expect(404);
  });

  // Successful claims commit one after another on the parent's row, each waiting for its WAL flush,
  // so on a slow disk this takes seconds.
  it('gives 100 parallel children exactly what the parent has, never more', async () => {
    const parentCents = 2000;
    const parent = (await open({ budget_cents: parentCents }).expect(201)).body.data as BudgetBody;
    const server: Server = await s.t.app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/control/v1/agent/budgets`;
    // Amounts vary so the parent runs dry part-way, not on a tidy boundary.
    const amounts = Array.from({ length: 100 }, (_, i) => 40 + ((i * 37) % 61));
    const results = await Promise.all(
      amounts.map(async (budget_cents) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { ...bearer(key), 'content-type': 'application/json' },
          body: JSON.stringify({ budget_cents, parent_budget_id: parent.id }),
        });
        return { status: res.status, body: (await res.json()) as { data?: BudgetBody; error?: { code: string; ceiling_cents: number } } };
      }),
    );

    const opened = results.filter((r) => r.status === 201).map((r) => r.body.data as BudgetBody);
    const refused = results.filter((r) => r.status !== 201);
    expect(opened.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(r.body.error?.code).toBe('parent_budget_exhausted');
      expect(r.body.error?.ceiling_cents).toBeGreaterThanOrEqual(0);
    }

    const given = opened.reduce((sum, b) => sum + b.budget_cents, 0);
    const after = await read(parent.id);
    expect(after.remaining_cents).toBeGreaterThanOrEqual(0);
    expect(given).toBe(parentCents - after.remaining_cents);
    const [{ sum }] = await s.t.app
      .get(DataSource)
      .query(`SELECT sum(budget_cents)::text AS sum FROM budgets WHERE parent_budget_id = $1`, [parent.id]);
    expect(Number(sum)).toBe(given);
    // A refusal reports a real shortfall: what was left was less than that request asked for.
    for (const r of refused) expect(r.body.error?.ceiling_cents).toBeLessThan(100);

    await Promise.all(opened.map((b) => close(b.id).expect(200)));
    expect(await read(parent.id)).toMatchObject({ remaining_cents: parentCents, status: 'active' });
  }, 60_000);
});
