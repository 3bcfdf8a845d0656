import type { Pool } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Statements on the hot paths (authorizations, simulations, cosignature checks). Outside a
 * transaction each runs as a named prepared statement, which every pooled connection parses and
 * plans once instead of on every request; inside one (`em`) it is a plain query on that transaction.
 */
export class PreparedStatements {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = (dataSource.driver as PostgresDriver).master as Pool;
  }

  /** `name` must always come with the same `text`. */
  async run<T>(em: EntityManager | null, name: string, text: string, values: unknown[]): Promise<T[]> {
    if (em) return (await em.query(text, values)) as T[];
    try {
      return (await this.pool.query({ name, text, values })).rows as T[];
    } catch (e) {
      // Failures look as they do through TypeORM (a unique violation still becomes a 409 upstream).
      throw new QueryFailedError(text, values, e as Error);
    }
  }
}
