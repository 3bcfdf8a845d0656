import type { PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

/**
 * Runs the transaction's last statement with COMMIT queued right behind it; resolves with the
 * statement's rows once both are done. A failing statement aborts the transaction, so the queued
 * COMMIT rolls back. Call it as the very last step: the data is committed when it resolves.
 */
export type FinalStatement = <R = Record<string, unknown>>(sql: string, params: unknown[]) => Promise<R[]>;

/**
 * Runs `first`, then `rest` with its result, in one database transaction, like
 * DataSource.transaction but sending BEGIN together with `first`'s statement and, when `rest`
 * ends with `finish`, COMMIT together with that last statement: the driver queues them on the
 * connection, so the transaction waits for two round trips less. `first` must issue one
 * statement; when BEGIN fails that statement ran alone and `rest` never runs.
 */
export async function pipelinedTransaction<A, T>(
  dataSource: DataSource,
  first: (manager: EntityManager) => Promise<A>,
  rest: (manager: EntityManager, firstResult: A, finish: FinalStatement) => Promise<T>,
): Promise<T> {
  const runner = dataSource.createQueryRunner();
  const client = (await runner.connect()) as PoolClient;
  let finished = false;
  const finish: FinalStatement = async <R>(sql: string, params: unknown[]) => {
    finished = true;
    const [result] = await Promise.all([client.query(sql, params), client.query('COMMIT')]);
    return result.rows as R[];
  };
  try {
    const [, result] = await Promise.all([client.query('BEGIN'), first(runner.manager)]);
    const done = await rest(runner.manager, result, finish);
    if (!finished) await client.query('COMMIT');
    return done;
  } catch (err) {
    // Queued behind whatever is still running; after `finish` it only meets an ended transaction.
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}
