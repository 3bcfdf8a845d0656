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
}

/** Schema changes go through migrations only; the pool fails fast so readiness reports an outage quickly. */
export function typeOrmOptions(options: DatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    applicationName: options.applicationName,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    extra: { max: options.poolSize ?? 20, connectionTimeoutMillis: 2000 },
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
