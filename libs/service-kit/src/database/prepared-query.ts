import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

/** Statement names by text: the same text always gets the same name, so no name is ever reused for other SQL. */
const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `p_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs a hot-path statement as a named prepared statement: each pooled connection parses and
 * plans it once instead of on every call (Postgres then reuses a generic plan). Inside a
 * transaction (`executor` is a transaction's EntityManager) it runs on that transaction's
 * connection. `text` must be a constant, never SQL built per call. Failures look as they do
 * through TypeORM, so callers' error mapping is unchanged.
 */
export async function preparedQuery<T>(executor: DataSource | EntityManager, text: string, values: unknown[]): Promise<T[]> {
  const target = executor instanceof DataSource ? poolOf(executor) : await connectionOf(executor);
  try {
    return (await target.query({ name: nameOf(text), text, values })).rows as T[];
  } catch (e) {
    throw new QueryFailedError(text, values, e as Error);
  }
}

function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}

/** A transaction's manager has a connected query runner; the DataSource's own manager has none and uses the pool. */
async function connectionOf(manager: EntityManager): Promise<Pool | PoolClient> {
  const runner = manager.queryRunner as PostgresQueryRunner | undefined;
  return runner ? ((await runner.connect()) as PoolClient) : poolOf(manager.connection);
}
