import type { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createLogger } from '@bursar/service-kit';
import { pollUntil, startWebhookReceiver, startWorkerProcess, testRedisUrl, webhookTestEnv, WebhookReceiver, WorkerProcess } from '@bursar/testing';
import { createControlApp } from '../../src/control.app';
import { bearer } from '../control-fixtures';
import { act, agentWithPolicy, DecisionStack, startDecisionStack } from '../decision-fixtures';

const COSTS = [1000, 4500, 6000, 1500, 3000, 4100, 7000, 2500, 500, 4200, 1000, 3500, 9000, 800, 3900, 5000, 1200, 4900, 600, 2000];

/**
 * The queued path: a window above the inline limit runs on control's BullMQ queue, page by page
 * (two decisions a page, a pause between pages, so a test can stop control mid-run).
 */
describe('policy backtests on the queue', () => {
  const webhookEnv = webhookTestEnv('backtests', 1);
  let s: DecisionStack;
  let worker: WorkerProcess;
  let receiver: WebhookReceiver;
  let app: INestApplication;
  let ids: string[];
  let from: string;
  let to: string;
  const http = () => request(app.getHttpServer());
  const ws = (path: string) => `/control/v1/workspaces/${s.slug}${path}`;
  const read = async (id: string) => (await http().get(ws(`/policy_backtests/${id}`)).set(bearer(s.owner)).expect(200)).body.data;
  const changes = async (id: string) =>
    (await http().get(ws(`/policy_backtests/${id}/changes`)).query({ limit: 200 }).set(bearer(s.owner)).expect(200)).body.data.map((c: { intent_id: string }) => c.intent_id);
  // A stricter cap than the live one: every request above it changes (a denial now, or a denial naming another limit).
  const expectedChanges = () => ids.filter((_, i) => COSTS[i] > 4000);

  beforeAll(async () => {
    s = await startDecisionStack('backtest_queue', {
      ...webhookEnv,
      POLICY_BACKTEST_INLINE_LIMIT: '5',
      POLICY_BACKTEST_PAGE_SIZE: '2',
      POLICY_BACKTEST_PAGE_DELAY_MS: '80',
      POLICY_BACKTEST_STALE_MS: '1000',
    });
    app = s.t.app;
    worker = await startWorkerProcess({ REDIS_URL: testRedisUrl(), ...webhookEnv });
    receiver = await startWebhookReceiver();
    await http().post(ws('/webhook_endpoints')).set(bearer(s.owner)).send({ url: receiver.url, enabled_events: ['policy_backtest.completed'] }).expect(201);
    from = new Date(Date.now() - 1000).toISOString();
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 5000 }, 1_000_000);
    ids = [];
    for (const cost of COSTS) ids.push((await act(app, agent, { action_type: 'api.call', cost_cents: cost })).body.data.id);
    to = new Date(Date.now() + 1000).toISOString();
  }, 60_000);
  afterAll(async () => {
    await worker.stop();
    await receiver.close();
    // `app` is the second control app; the stack's own was closed by the restart test.
    await app.close();
    await s.close();
  });

  it('answers 202 queued, survives a restart of control mid-run, completes once and emits policy_backtest.completed', async () => {
    const created = await http().post(ws('/policy_backtests')).set(bearer(s.owner)).send({ from, to, policy: { per_transaction_cap_cents: 4000 } }).expect(202);
    expect(created.body.data).toMatchObject({ object: 'policy_backtest', status: 'queued', progress: 0, result: null });
    const id = created.body.data.id;
    const running = await pollUntil(() => read(id), (b) => b.status === 'running' && b.evaluated > 0 && b.evaluated < COSTS.length);
    expect(running.progress).toBeGreaterThan(0);
    expect(running.progress).toBeLessThan(1);

    await s.t.app.close();
    // Stopped by the shutdown: handed back to the queue, not left running.
    const db = new Client({ connectionString: s.t.settings.CONTROL_DATABASE_URL });
    await db.connect();
    const { rows } = await db.query(`SELECT status, attempts FROM policy_backtests WHERE id = $1`, [id]).finally(() => db.end());
    expect(rows).toEqual([{ status: 'queued', attempts: 1 }]);
    app = await createControlApp(s.t.settings, createLogger('control', 'silent'));
    await app.init();

    const done = await pollUntil(() => read(id), (b) => b.status === 'completed', 20_000);
    expect(done).toMatchObject({ progress: 1, evaluated: COSTS.length, result: { evaluated: COSTS.length, changed: expectedChanges().length } });
    expect(await changes(id)).toEqual(expectedChanges());
    const [{ attempts }] = await app.get(DataSource).query(`SELECT attempts FROM policy_backtests WHERE id = $1`, [id]);
    expect(attempts).toBe(2);

    const [delivery] = await receiver.waitFor(1, 20_000);
    expect(JSON.parse(delivery.body)).toMatchObject({ type: 'policy_backtest.completed', data: { object: 'policy_backtest', id, status: 'completed', result: { changed: expectedChanges().length } } });
  }, 60_000);

  it('takes over a run whose worker died (running, no heartbeat) and never leaves it running', async () => {
    const created = await http().post(ws('/policy_backtests')).set(bearer(s.owner)).send({ from, to, mode: 'independent', policy: { per_transaction_cap_cents: 4000 } }).expect(202);
    const id = created.body.data.id;
    await pollUntil(() => read(id), (b) => b.status === 'completed', 20_000);
    // As a worker that died mid-run leaves it: running, its heartbeat old, half its changes written.
    await app.get(DataSource).query(`UPDATE policy_backtests SET status = 'running', heartbeat_at = now() - interval '1 hour', result = NULL WHERE id = $1`, [id]);
    const done = await pollUntil(() => read(id), (b) => b.status === 'completed', 20_000);
    expect(done.result).toMatchObject({ evaluated: COSTS.length, changed: expectedChanges().length });
    expect(await changes(id)).toEqual(expectedChanges());
    expect((await app.get(DataSource).query(`SELECT attempts FROM policy_backtests WHERE id = $1`, [id]))[0].attempts).toBe(2);
    const list = await http().get(ws('/policy_backtests')).set(bearer(s.owner)).expect(200);
    expect(list.body.data.map((b: { id: string }) => b.id)[0]).toBe(id);
    expect(list.body.data.every((b: { status: string }) => b.status === 'completed')).toBe(true);
  }, 60_000);
});
