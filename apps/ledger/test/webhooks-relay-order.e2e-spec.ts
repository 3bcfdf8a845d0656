import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { holdTransaction, pollUntil, webhookTestEnv } from '@bursar/testing';
import { LedgerScope } from '../src/common/mode';
import { EventsService } from '../src/events/events.service';
import { accessToken, LedgerFixtures } from './ledger-fixtures';
import { LedgerTestApp, startLedgerTestApp } from './ledger-test-app';

/**
 * The outbox relay when commits land out of order: it takes every unrelayed row it can see, so an
 * event whose transaction drew an earlier seq and committed later is still fanned out, once.
 */
describe('Ledger webhook relay with late commits', () => {
  let t: LedgerTestApp;
  let db: DataSource;
  let scope: LedgerScope;

  beforeAll(async () => {
    t = await startLedgerTestApp('relay_order', webhookTestEnv('ledger-relay-order'));
    db = t.app.get(DataSource);
    const client = await LedgerFixtures.of(t).client();
    scope = { organizationId: client.organizationId, mode: 'test', ledgerId: client.ledgerId };
    await request(t.app.getHttpServer())
      .post('/ledger/v1/webhook_endpoints')
      .set('Authorization', `Bearer ${await accessToken(t, client)}`)
      .send({ url: 'http://127.0.0.1:9/hook' })
      .expect(201);
  });
  afterAll(() => t.close());

  const record = (type: string) => db.transaction((m) => t.app.get(EventsService).record(m, scope, type, null, {}));
  const deliveries = async (eventIds: string[]): Promise<Map<string, number>> => {
    const rows: { eventId: string; n: number }[] = await db.query(
      `SELECT event_id AS "eventId", count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY ($1::uuid[]) GROUP BY event_id`,
      [eventIds],
    );
    return new Map(rows.map((r) => [r.eventId, r.n]));
  };

  it('delivers an earlier-seq event that commits after the relay has handled a later one', async () => {
    const held = await holdTransaction(db, (m) => t.app.get(EventsService).record(m, scope, 'test.late', null, {}));
    const later = await record('test.early');
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
      while (writing) ids.push((await record('test.burst')).id);
    };
    const staller = async () => {
      while (writing) {
        const held = await holdTransaction(db, (m) => t.app.get(EventsService).record(m, scope, 'test.held', null, {}));
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
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM events WHERE ledger_id = $1 AND relayed_at IS NULL`, [scope.ledgerId]);
    expect(n).toBe(0);
  }, 30_000);
});
