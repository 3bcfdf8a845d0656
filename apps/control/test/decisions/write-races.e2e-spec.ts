import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { DataSource, QueryRunner } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { startIdentifiedTestApp } from '../control-test-app';
import { bearer, createAgent, createWorkspace } from '../control-fixtures';

interface Answer {
  status: number;
  body: { data?: { id: string; remaining_cents: number }; error?: { code: string | null; ceiling_cents?: number } };
}

describe('control writes under races', () => {
  let key: string;
  let base: string;

  const s = suiteStack(() => startIdentifiedTestApp('write_races', ['owner']), 60_000);
  beforeAll(async () => {
    const owner = await s.idp.token('owner');
    await createWorkspace(s.t.app, owner, { name: 'Races', slug: 'races' });
    key = (await createAgent(s.t.app, owner, 'races')).api_key;
    const server: Server = await s.t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/control/v1`;
  }, 60_000);

  const post = async (path: string, body: unknown): Promise<Answer> => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
  const db = () => s.t.app.get(DataSource);
  /** Waits until one of the service's statements is queued behind a row lock; answers its backend pid. */
  const blockedBackend = async (statement: string): Promise<number> => {
    for (let waited = 0; waited < 5_000; waited += 20) {
      const [row] = await db().query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
        [`${statement}%`],
      );
      if (row) return row.pid as number;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no ${statement} ever waited on a lock`);
  };
  const withLocks = async <T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> => {
    const runner = db().createQueryRunner();
    await runner.startTransaction();
    try {
      return await work(runner);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  };
  const tally = (answers: Answer[]) =>
    answers.reduce<Record<string, number>>((acc, a) => {
      const k = `${a.status} ${a.body.error?.code ?? ''}`.trim();
      acc[k] = (acc[k] ?? 0) + 1;
      return acc;
    }, {});

  it('opens exactly 66 of 100 parallel children of 150 on a parent of 10,000 and refuses the rest with 422', async () => {
    const parent = await post('/agent/budgets', { budget_cents: 10_000 });
    expect(parent.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => post('/agent/budgets', { budget_cents: 150, parent_budget_id: parent.body.data?.id })),
    );
    expect(tally(answers)).toEqual({ '201': 66, '422 parent_budget_exhausted': 34 });
  }, 60_000);

  it('refuses 100 parallel children of a parent that can afford none, all with 422', async () => {
    const parent = await post('/agent/budgets', { budget_cents: 100 });
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => post('/agent/budgets', { budget_cents: 150, parent_budget_id: parent.body.data?.id })),
    );
    expect(tally(answers)).toEqual({ '422 parent_budget_exhausted': 100 });
  }, 60_000);

  it('runs a transaction again when Postgres picks it as a deadlock victim, so the client sees one success', async () => {
    const parent = await post('/agent/budgets', { budget_cents: 1_000 });
    const parentId = parent.body.data?.id;
    const [{ agent_id }] = await db().query(`SELECT agent_id FROM budgets WHERE id = $1`, [parentId]);
    const { pending } = await withLocks(async (runner) => {
      // Only the service's backend looks for deadlocks in time, so it is the one Postgres aborts.
      await runner.query(`SET LOCAL deadlock_timeout = '30s'`);
      await runner.query(`SELECT 1 FROM budgets WHERE id = $1 FOR NO KEY UPDATE`, [parentId]);
      const pending = post('/agent/budgets', { budget_cents: 100, parent_budget_id: parentId });
      // The child's insert holds a key-share lock on its agent; the claim then queues on the parent,
      // and this lock closes the cycle. Granted only once the service's transaction was aborted.
      await blockedBackend('UPDATE budgets');
      await runner.query(`SELECT 1 FROM agents WHERE id = $1 FOR UPDATE`, [agent_id]);
      // Its retry queues on these locks until they go with this transaction.
      return { pending };
    });
    const answer = await pending;
    expect(answer.status).toBe(201);
    const children = await db().query(`SELECT budget_cents::int FROM budgets WHERE parent_budget_id = $1`, [parentId]);
    expect(children).toEqual([{ budget_cents: 100 }]);
  }, 30_000);

  it('answers a statement cut off by a database shutdown with 503, a code and Retry-After', async () => {
    const parent = await post('/agent/budgets', { budget_cents: 1_000 });
    const answer = await withLocks(async (runner) => {
      await runner.query(`SELECT 1 FROM budgets WHERE id = $1 FOR NO KEY UPDATE`, [parent.body.data?.id]);
      const pending = fetch(`${base}/agent/budgets`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ budget_cents: 100, parent_budget_id: parent.body.data?.id }),
      });
      // What a fast shutdown does to every session: terminated mid-statement (SQLSTATE 57P01).
      await runner.query(`SELECT pg_terminate_backend($1)`, [await blockedBackend('UPDATE budgets')]);
      return pending;
    });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(await answer.json()).toEqual({ error: { message: expect.any(String), code: 'service_unavailable', hint: expect.any(String) } });
  }, 30_000);
});
