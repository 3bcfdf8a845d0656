import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource, EntityManager } from 'typeorm';
import { holdTransaction } from './held-transaction';
import { pollUntil } from './poll-until';

/** What a service's outbox relay test needs: how to write one event, and how to count the unrelayed. */
export interface RelayProbe {
  db: DataSource;
  /** Writes one event with `manager` (in the caller's transaction) and answers its id and seq. */
  write(manager: EntityManager): Promise<{ id: string; seq: string | number }>;
  /** Events of the test's tenant the relay has not yet handled. */
  unrelayedCount(): Promise<number>;
}

async function deliveries(db: DataSource, eventIds: string[]): Promise<Map<string, number>> {
  const rows: { eventId: string; n: number }[] = await db.query(
    `SELECT event_id AS "eventId", count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY ($1::uuid[]) GROUP BY event_id`,
    [eventIds],
  );
  return new Map(rows.map((r) => [r.eventId, r.n]));
}

/**
 * An event whose transaction drew an earlier seq and committed after the relay handled a later one
 * is still fanned out, once. Both services' relays must pass it (both share the outbox design).
 */
export async function expectLateCommitDelivered(probe: RelayProbe): Promise<void> {
  const emit = () => probe.db.transaction((m) => probe.write(m));
  const held = await holdTransaction(probe.db, (m) => probe.write(m));
  const later = await emit();
  expect(Number(later.seq)).toBeGreaterThan(Number(held.value.seq));
  await pollUntil(() => deliveries(probe.db, [later.id]), (d) => d.get(later.id) === 1);
  expect((await deliveries(probe.db, [held.value.id])).size).toBe(0);

  await held.commit();
  const done = await pollUntil(() => deliveries(probe.db, [held.value.id, later.id]), (d) => d.get(held.value.id) === 1);
  expect([...done.values()]).toEqual([1, 1]);
}

/** Four writers and two slow committers for 1.5 s: every event gets exactly one delivery. */
export async function expectBurstFannedOutOnce(probe: RelayProbe): Promise<void> {
  const ids: string[] = [];
  let writing = true;
  const writer = async () => {
    while (writing) ids.push((await probe.db.transaction((m) => probe.write(m))).id);
  };
  const staller = async () => {
    while (writing) {
      const held = await holdTransaction(probe.db, (m) => probe.write(m));
      ids.push(held.value.id);
      await sleep(20 + Math.random() * 60);
      await held.commit();
    }
  };
  const running = [writer(), writer(), writer(), writer(), staller(), staller()];
  await sleep(1_500);
  writing = false;
  await Promise.all(running);
  const done = await pollUntil(() => deliveries(probe.db, ids), (d) => d.size === ids.length, 15_000);
  expect([...done.values()].every((n) => n === 1)).toBe(true);
  expect(await probe.unrelayedCount()).toBe(0);
}
