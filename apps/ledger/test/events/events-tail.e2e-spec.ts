import { setTimeout as sleep } from 'node:timers/promises';
import { holdTransaction } from '@bursar/testing';
import { LedgerScope } from '../../src/common/mode';
import { EventsService } from '../../src/events/events.service';
import { booksStack } from '../books-api';

interface WireEvent {
  id: string;
  type: string;
  resource_id: string | null;
}

/**
 * The events tail while commits land out of order. A transaction held open on purpose draws its
 * event's `seq` first and commits last: a reader that has already passed that position must still
 * get the event, and must not be shown anything that could later land behind it.
 */
describe('Events tail under concurrent writers', () => {
  const api = booksStack('events_tail', { accounts: ['bank'] });
  let scope: LedgerScope;

  beforeAll(async () => {
    scope = { organizationId: api.client.organizationId, mode: 'test', ledgerId: api.client.ledgerId };
    for (let i = 0; i < 8; i++) await api.account(`merchant-${i}`, 'liability');
  });

  /** A database transaction that writes an event now and commits whenever the test says. */
  async function holdEvent(type: string): Promise<{ id: string; commit(): Promise<void> }> {
    const held = await holdTransaction(api.db, (m) => api.t.app.get(EventsService).record(m, scope, type, null, { held: true }));
    return { id: held.value.id, commit: held.commit };
  }

  async function page(query: string): Promise<{ data: WireEvent[]; has_more: boolean; next_cursor: string | null }> {
    const res = await api.get(`/events?${query}`);
    if (res.status !== 200) throw new Error(`events ${query}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** Everything after `after` now servable, oldest first, following has_more. */
  async function readAfter(after: string): Promise<WireEvent[]> {
    const out: WireEvent[] = [];
    for (let from = after; ; ) {
      const body = await page(`after=${from}&limit=200`);
      out.push(...body.data);
      if (!body.has_more) return out;
      from = body.data[body.data.length - 1].id;
    }
  }

  /** Newest first, page by page, down to (not including) `held`; the whole list when `held` is null. */
  async function readNewestDownTo(held: string | null): Promise<WireEvent[]> {
    const out: WireEvent[] = [];
    for (let cursor: string | null = null; ; ) {
      const body = await page(`limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      const stop = body.data.findIndex((e) => e.id === held);
      out.push(...(stop === -1 ? body.data : body.data.slice(0, stop)));
      if (stop !== -1 || !body.has_more) return out;
      cursor = body.next_cursor;
    }
  }

  const newest = async () => (await page('limit=1')).data[0].id;

  it('holds back events a late commit could land behind, then serves the late one in its place', async () => {
    await api.transfer('merchant-0', 'bank', '1').expect(201);
    const anchor = await newest();
    const held = await holdEvent('test.held'); // its seq comes before the next write's
    const written = (await api.transfer('merchant-0', 'bank', '2').expect(201)).body.data.id as string;

    // While it is open, neither it nor the later write may be served: serving the write would let
    // a reader pass the held event's position before it exists.
    expect(await readAfter(anchor)).toEqual([]);
    expect(await readNewestDownTo(anchor)).toEqual([]);

    await held.commit();
    const tail = await readAfter(anchor);
    expect(tail.map((e) => e.id)[0]).toBe(held.id);
    expect(tail.map((e) => e.resource_id)).toEqual([null, written]);
    expect((await readNewestDownTo(anchor)).map((e) => e.id)).toEqual(tail.map((e) => e.id).reverse());
  });

  it('orders and pages by number across a digit boundary of seq (sorting the printed seq lost events)', async () => {
    const anchor = await newest();
    const db = api.db;
    await db.query(`ALTER TABLE events ALTER COLUMN seq RESTART WITH 99995`);
    const written: string[] = [];
    for (const batch of [0, 1]) {
      await db.transaction(async (manager) => {
        for (let i = 0; i < 10; i++) written.push((await api.t.app.get(EventsService).record(manager, scope, 'test.boundary', `${batch}-${i}`, {})).id);
      });
    }
    const newestFirst: string[] = [];
    for (let cursor: string | null = null; ; ) {
      const body = await page(`limit=3&type=test.boundary${cursor ? `&cursor=${cursor}` : ''}`);
      newestFirst.push(...body.data.map((e) => e.id));
      if (!body.has_more) break;
      cursor = body.next_cursor;
    }
    expect(newestFirst).toEqual([...written].reverse());
    expect((await readAfter(anchor)).map((e) => e.id)).toEqual(written);
  });

  it('validates after', async () => {
    const anchor = await newest();
    const tail = await page(`after=${anchor}&limit=1`);
    expect(tail).toMatchObject({ data: [], has_more: false, next_cursor: null });
    for (const bad of ['00000000-0000-4000-8000-000000000000', 'garbage']) {
      const res = await api.get(`/events?after=${bad}`).expect(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'after' });
    }
    const newestFirst = await page('limit=1');
    await api.get(`/events?after=${anchor}&cursor=${newestFirst.next_cursor}`).expect(422);
    // A newest-first cursor is not a tail position.
    expect((await api.get(`/events?after=${newestFirst.next_cursor}`).expect(422)).body.error.param).toBe('after');
  });

  it('pages a backlog forward with next_cursor or the last id, oldest first', async () => {
    const anchor = await newest();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api.transfer('merchant-1', 'bank', '1').expect(201)).body.data.id);
    const first = await page(`after=${anchor}&limit=2&type=transaction.created`);
    expect(first).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const second = await page(`after=${first.next_cursor}&limit=2&type=transaction.created`);
    const third = await page(`after=${second.data[1].id}&limit=2&type=transaction.created`);
    expect(third).toMatchObject({ has_more: false, next_cursor: null });
    expect([...first.data, ...second.data, ...third.data].map((e) => e.resource_id)).toEqual(ids);
  });

  it('gives a poller every event exactly once and in order while 20 writers and late commits race', async () => {
    const anchor = await newest();
    const created: string[] = [];
    const statuses = new Map<number, number>();
    let writing = true;

    const writer = async (n: number) => {
      while (writing) {
        const res = await api.transfer(`merchant-${n % 8}`, 'bank', '1');
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 201) created.push(res.body.data.id);
      }
    };
    // Keeps a transaction that drew its seq early open across other commits, over and over.
    const heldIds: string[] = [];
    const staller = async () => {
      while (writing) {
        const held = await holdEvent('test.held');
        heldIds.push(held.id);
        await sleep(20 + Math.random() * 80);
        await held.commit();
        await sleep(Math.random() * 30);
      }
    };
    const tail: WireEvent[] = [];
    // What the newest-first poller collected, kept oldest first.
    const newestFirst: WireEvent[] = [];
    const poll = async () => {
      tail.push(...(await readAfter(tail.at(-1)?.id ?? anchor)));
      newestFirst.push(...(await readNewestDownTo(newestFirst.at(-1)?.id ?? anchor)).reverse());
    };
    const poller = async () => {
      while (writing) {
        await poll();
        await sleep(10);
      }
    };

    const running = [...Array.from({ length: 20 }, (_, n) => writer(n)), staller(), staller(), poller()];
    await sleep(4_000);
    writing = false;
    await Promise.all(running);
    await poll();

    expect([...statuses.keys()]).toEqual([201]);
    expect(created.length).toBeGreaterThan(100);
    const tailIds = tail.map((e) => e.id);
    expect(new Set(tailIds).size).toBe(tailIds.length);
    // Every 201 exactly once, in the order the list itself gives, and every held event too.
    expect(tail.filter((e) => e.type === 'transaction.created').map((e) => e.resource_id).sort()).toEqual([...created].sort());
    expect(tail.filter((e) => e.type === 'test.held').map((e) => e.id).sort()).toEqual([...heldIds].sort());
    const full = await readNewestDownTo(null);
    const sinceAnchor = full.slice(0, full.findIndex((e) => e.id === anchor)).reverse();
    expect(tailIds).toEqual(sinceAnchor.map((e) => e.id));
    expect(newestFirst.map((e) => e.id)).toEqual(tailIds);
    // And the list holds what the database holds.
    const [{ n }] = await api.db.query(`SELECT count(*)::int AS n FROM events WHERE ledger_id = $1`, [scope.ledgerId]);
    expect(full).toHaveLength(n);
  }, 60_000);
});
