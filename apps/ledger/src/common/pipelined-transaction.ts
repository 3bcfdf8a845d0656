import type { PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `first`, then `rest` with its result, in one database transaction, like
 * DataSource.transaction but sending BEGIN together with `first`'s statement: the driver queues
 * both on the connection, so the transaction waits for one round trip less. `first` must issue
 * one statement; when BEGIN fails that statement ran alone and `rest` never runs.
 */
export async function pipelinedTransaction<A, T>(
  dataSource: DataSource,
  first: (manager: EntityManager) => Promise<A>,
  rest: (manager: EntityManager, firstResult: A) => Promise<T>,
): Promise<T> {
  const runner = dataSource.createQueryRunner();
  const client = (await runner.connect()) as PoolClient;
  try {
    const [, result] = await Promise.all([client.query('BEGIN'), first(runner.manager)]);
    const done = await rest(runner.manager, result);
    await client.query('COMMIT');
    return done;
  } catch (err) {
    // Queued behind whatever statement is still running, so it ends this transaction, not another.
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}
