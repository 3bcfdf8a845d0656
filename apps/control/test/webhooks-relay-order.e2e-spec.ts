import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { holdTransaction, pollUntil, webhookTestEnv } from '@bursar/testing';
import { WebhookEventsService } from '../src/webhooks/webhook-events.service';
import { bearer, createWorkspace } from './control-fixtures';
import { ControlTestApp, startControlTestApp } from './control-test-app';
import { startTestIdentityProvider, TestIdentityProvider } from './test-identity-provider';

/**
 * Control's outbox relay when commits land out of order: an event whose transaction drew an
 * earlier seq and committed later is still fanned out, once. (Control serves no events feed; its
 * events reach clients only through this relay.)
 */
describe('Control webhook relay with late commits', () => {
  let idp: TestIdentityProvider;
  let t: ControlTestApp;
  let db: DataSource;
  let workspaceId: string;

  beforeAll(async () => {
    idp = await startTestIdentityProvider(['owner']);
    t = await startControlTestApp('relay_order', { ...idp.env, ...webhookTestEnv('control-relay-order') });
    db = t.app.get(DataSource);
    const owner = await idp.token('owner');
    workspaceId = (await createWorkspace(t.app, owner, { name: 'Relay', slug: 'relay' })).id;
    await request(t.app.getHttpServer())
      .post('/control/v1/workspaces/relay/webhook_endpoints')
      .set(bearer(owner))
      .send({ url: 'http://127.0.0.1:9/hook' })
      .expect(201);
  }, 30_000);
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const emit = (type: string) => db.transaction((m) => t.app.get(WebhookEventsService).emit(m, workspaceId, type, {}));
  const holdEmit = (type: string) => holdTransaction(db, (m) => t.app.get(WebhookEventsService).emit(m, workspaceId, type, {}));
  const deliveries = async (eventIds: string[]): Promise<Map<string, number>> => {
    const rows: { eventId: string; n: number }[] = await db.query(
      `SELECT event_id AS "eventId", count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY ($1::uuid[]) GROUP BY event_id`,
      [eventIds],
    );
    return new Map(rows.map((r) => [r.eventId, r.n]));
  };

  it('delivers an earlier-seq event that commits after the relay has handled a later one', async () => {
    const held = await holdEmit('budget.low');
    const later = await emit('budget.low');
    expect(Number(later.seq)).toBeGreaterThan(Number(held.value.seq));
    await pollUntil(() => deliveries([later.id]), (d) => d.get(later.id) === 1);
    expect((await deliveries([held.value.id])).size).toBe(0);

    await held.commit();
    const done = await pollUntil(() => deliveries([held.value.id, later.id]), (d) => d.get(held.value.id) === 1);
    expect([...done.values()]).toEqual([1, 1]);
  });

  it('fans out every event exactly once while many commits land out of order', async () => {
    const ids: string[] = [];
    let writing = true;
    const writer = async () => {
      while (writing) ids.push((await emit('budget.low')).id);
    };
    const staller = async () => {
      while (writing) {
        const held = await holdEmit('budget.low');
        ids.push(held.value.id);
        await sleep(20 + Math.random() * 60);
        await held.commit();
      }
    };
    const running = [writer(), writer(), writer(), writer(), staller(), staller()];
    await sleep(1_500);
    writing = false;
    await Promise.all(running);
    const done = await pollUntil(() => deliveries(ids), (d) => d.size === ids.length, 15_000);
    expect([...done.values()].every((n) => n === 1)).toBe(true);
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM webhook_events WHERE workspace_id = $1 AND relayed_at IS NULL`, [workspaceId]);
    expect(n).toBe(0);
  }, 30_000);
});
