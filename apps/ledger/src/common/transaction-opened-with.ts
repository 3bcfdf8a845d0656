import type { PoolClient, QueryResult } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

/** A first statement to run as a transaction opens, and how to read its rows. */
export interface OpeningStatement<A> {
  /** Statements with their values inlined as escaped literals: they travel in BEGIN's message, which takes no parameters. */
  sql: string;
  /** Reads the statements' results, in order. */
  read(results: QueryResult[]): A;
}

/**
 * Runs `opening`, then `rest` with its result, in one database transaction, like
 * DataSource.transaction but with BEGIN and the opening statement sent as one message, so the
 * transaction waits for one round trip less.
 */
export async function transactionOpenedWith<A, T>(
  dataSource: DataSource,
  opening: OpeningStatement<A>,
  rest: (manager: EntityManager, opened: A) => Promise<T>,
): Promise<T> {
  const runner = dataSource.createQueryRunner();
  const client = (await runner.connect()) as PoolClient;
  try {
    const sql = `BEGIN; ${opening.sql}`;
    // A message of several statements answers one result per statement.
    const [, ...results] = (await client.query(sql).catch((e: Error) => Promise.reject(new QueryFailedError(sql, [], e)))) as unknown as QueryResult[];
    const done = await rest(runner.manager, opening.read(results));
    await client.query('COMMIT');
    return done;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}
