import request from 'supertest';
import { DataSource } from 'typeorm';
import { holdTransaction } from '@bursar/testing';
import { INSERT_COLUMNS } from '../../src/decisions/intents.repository';
import { SpendingRepository } from '../../src/spending/spending.repository';
import { bearer, seatMember } from '../control-fixtures';
import { act, agentWithPolicy, DecisionStack, pay, startDecisionStack } from '../decision-fixtures';

describe('GET /control/v1/workspaces/:slug/spending', () => {
  let s: DecisionStack;
  const get = (query: Record<string, string> = {}, token = s.owner) =>
    request(s.t.app.getHttpServer()).get(`/control/v1/workspaces/${s.slug}/spending`).query(query).set(bearer(token));

  beforeAll(async () => {
    // The tests fold by hand.
    s = await startDecisionStack('spending', { CONTROL_ROLLUP_FOLD_INTERVAL_MS: '0' });
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

  const db = () => s.t.app.get(DataSource);
  const fold = () => s.t.app.get(SpendingRepository).fold();
  /** Empties the rollups, as if never folded. */
  const unfold = async () => {
    await db().query(`DELETE FROM decision_rollups`);
    await db().query(`UPDATE decision_rollups_folded SET folded_to = '-infinity'`);
  };

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
    // Only whole past hours are folded: the decisions move a day and an hour back, into them.
    await db().query(`UPDATE intents SET created_at = created_at - interval '25 hours' WHERE workspace_id = $1`, [s.workspaceId]);
    expect((await fold())?.getTime()).toBe(thisHour);
    expect((await db().query(`SELECT span, sum(decisions)::int AS n FROM decision_rollups GROUP BY span ORDER BY span`))).toEqual([
      { span: 'day', n: 6 },
      { span: 'hour', n: 6 },
    ]);
    // Whole days around them (day rows), whole hours around them (hour rows), and a range ending now (intents at its edge).
    const days = (await get({ from: new Date(today - 2 * day).toISOString(), to: new Date(today + 2 * day).toISOString() }).expect(200)).body.data;
    const hours = (await get({ granularity: 'hour', from: new Date(thisHour - 27 * hour).toISOString(), to: new Date(thisHour + 3 * hour).toISOString() }).expect(200)).body.data;
    const edge = (await get().expect(200)).body.data;
    expect(sorted(days)).toEqual(sorted(edge));
    expect(sorted(hours)).toEqual(sorted(edge));
    expect(days.rules).toEqual(edge.rules);
    expect(hours.agents).toEqual(expect.arrayContaining(edge.agents));
  });

  it('gives the same figures before and after a fold', async () => {
    await unfold();
    const hour = 3_600_000;
    const now = Date.now();
    const ranges: Record<string, string>[] = [
      { from: new Date(now - 3 * 86_400_000 + 1_234_567).toISOString(), to: new Date(now + 1_234_567).toISOString() },
      { granularity: 'hour', from: new Date(now - 30 * hour - 1_234).toISOString(), to: new Date(now + hour).toISOString() },
      { from: new Date(now - 26 * hour).toISOString(), to: new Date(now - 24 * hour - 1).toISOString() },
    ];
    const read = () => Promise.all(ranges.map(async (q) => (await get(q).expect(200)).body.data));
    const before = await read();
    expect(before[0].totals).toHaveLength(3);
    await fold();
    expect(await read()).toEqual(before);
    // Folding again finds nothing new and changes nothing.
    await fold();
    expect(await read()).toEqual(before);
  });

  it('does not lose a decision whose transaction was still open when a fold ran', async () => {
    const count = async () => (await get().expect(200)).body.data.totals.reduce((n: number, t: { count: number }) => n + t.count, 0);
    const before = await count();
    const columns = INSERT_COLUMNS.join(', ');
    const copied = INSERT_COLUMNS.map((c) => (c === 'id' ? 'gen_random_uuid()' : c === 'idempotency_key' ? `'late-' || id` : c)).join(', ');
    const late = await holdTransaction(db(), async (m) => {
      await m.query(`INSERT INTO intents (${columns}) SELECT ${copied} FROM intents WHERE workspace_id = $1 AND decision->>'outcome' = 'denied' LIMIT 1`, [s.workspaceId]);
      return ((await m.query(`SELECT xact_start FROM pg_stat_activity WHERE pid = pg_backend_pid()`)) as { xact_start: Date }[])[0].xact_start;
    });
    // The open transaction (it began before the fold) holds the fold back to the hour it began in.
    const foldedTo = (await fold()) as Date;
    expect(foldedTo.getTime()).toBeLessThanOrEqual(Math.floor(late.value.getTime() / 3_600_000) * 3_600_000);
    await late.commit();
    expect(await count()).toBe(before + 1);
    await fold();
    expect(await count()).toBe(before + 1);
  });

  it('counts nothing twice when two folds run at once', async () => {
    await unfold();
    const folding = (m: { query(sql: string): Promise<{ f: Date }[]> }) => m.query(`SELECT fold_decision_rollups() AS f`).then(([r]) => r.f);
    const first = await holdTransaction(db(), folding);
    let secondDone = false;
    const second = holdTransaction(db(), folding).then((h) => ((secondDone = true), h));
    await new Promise((r) => setTimeout(r, 200));
    // The second waits on the state row until the first commits, then starts where it stopped.
    expect(secondDone).toBe(false);
    await first.commit();
    const after = await second;
    await after.commit();
    expect(after.value).toEqual(first.value);
    const [rolled] = await db().query(
      `SELECT (SELECT sum(decisions)::int FROM decision_rollups WHERE span = 'day') AS days,
              (SELECT sum(decisions)::int FROM decision_rollups WHERE span = 'hour') AS hours,
              (SELECT count(*)::int FROM intents WHERE created_at < $1) AS intents`,
      [first.value],
    );
    expect(rolled.intents).toBeGreaterThan(0);
    expect(rolled).toEqual({ days: rolled.intents, hours: rolled.intents, intents: rolled.intents });
  });

  it('refuses to fold in a snapshot older than its own check of the open transactions', async () => {
    const runner = db().createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction('REPEATABLE READ');
      await expect(runner.query(`SELECT fold_decision_rollups()`)).rejects.toThrow(/READ COMMITTED/);
      await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
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
