import type { ClientBase } from 'pg';
import type { Logger } from 'pino';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { MixedList, EntitySchema } from 'typeorm';

export interface DatabaseOptions {
  url: string;
  applicationName: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  poolSize?: number;
  /** Where a pooled connection's failure is reported (a running service; scripts may omit it). */
  logger?: Logger;
}

/**
 * Gives every pooled connection an 'error' listener for its whole life. pg-pool listens only while
 * a connection is idle and TypeORM only while a query runner holds it, so a connection the server
 * ends (restart, pg_terminate_backend) in between, or after its holder let go of its listener, would
 * emit 'error' with nobody listening, which kills the process. The holder's next query fails
 * ("not queryable", answered 503), its release hands the broken connection back, and the pool opens
 * a fresh one for the next request.
 */
function watchConnections(applicationName: string, logger?: Logger) {
  const lost = (err: Error) => logger?.warn({ err: err.message, code: (err as { code?: string }).code, pool: applicationName }, 'database connection lost; the pool replaces it');
  return {
    onConnect: (client: ClientBase) => void client.on('error', lost),
    // The idle connection's error is already logged by the listener above.
    poolErrorHandler: () => undefined,
  };
}

/** Schema changes go through migrations only; the pool fails fast so readiness reports an outage quickly. */
export function typeOrmOptions(options: DatabaseOptions): DataSourceOptions {
  const { onConnect, poolErrorHandler } = watchConnections(options.applicationName, options.logger);
  return {
    type: 'postgres',
    url: options.url,
    applicationName: options.applicationName,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    poolErrorHandler,
    extra: { max: options.poolSize ?? 20, connectionTimeoutMillis: 2000, onConnect },
  };
}

/** Applies every pending migration, each in its own transaction; returns the names applied. */
export async function runMigrations(options: DataSourceOptions): Promise<string[]> {
  const dataSource = await new DataSource(options).initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}
