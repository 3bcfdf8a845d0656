import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { CommonSettings, createLogger, loadConfig, runMigrations } from '@bursar/service-kit';
import { createTestDatabase, testRedisUrl, testSecretKey } from './test-database';
import { suiteStack } from './suite-stack';

export interface ServiceTestApp<S> {
  app: INestApplication;
  settings: S;
  /** The app's database connection (of the app as it is now, after a restart too). */
  readonly db: DataSource;
  /** Closes the app and starts a new one on the same database, as a process restart would; `app` is the new one after. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** How a service's test apps are made. */
export interface TestService<S> {
  name: string;
  prefix: string;
  settings: new () => S;
  dataSource(settings: S): DataSourceOptions;
  create(settings: S, logger: Logger): Promise<INestApplication>;
}

/**
 * A service's test apps, with the settings every one of them gets (`defaults`, which a caller's `env` overrides):
 * `start` for a test that manages the app itself, `stack` for one describe block (started in beforeAll, closed in afterAll).
 */
export function serviceTestApps<S extends CommonSettings>(service: TestService<S>, defaults: Record<string, string> = {}) {
  const start = (label: string, env: Record<string, string> = {}) => startServiceTestApp({ ...service, label, env: { ...defaults, ...env } });
  const stack = (label: string, env: Record<string, string> = {}) => suiteStack(() => start(label, env));
  return { start, stack };
}

/**
 * A real service app on its own fresh, migrated database, initialised but not listening.
 * `prefix` names the service's settings (`LEDGER` -> LEDGER_DATABASE_URL, LEDGER_SECRET_KEY).
 */
export async function startServiceTestApp<S extends CommonSettings>(service: TestService<S> & { label: string; env: Record<string, string> }): Promise<ServiceTestApp<S>> {
  const db = await createTestDatabase(`${service.name}_${service.label}`);
  const settings = loadConfig(service.settings, {
    [`${service.prefix}_DATABASE_URL`]: db.url,
    [`${service.prefix}_SECRET_KEY`]: testSecretKey(),
    REDIS_URL: testRedisUrl(),
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    ...service.env,
  });
  await runMigrations(service.dataSource(settings));
  const start = async () => {
    const app = await service.create(settings, createLogger(service.name, settings.LOG_LEVEL));
    await app.init();
    return app;
  };
  const t: ServiceTestApp<S> = {
    app: await start(),
    settings,
    get db() {
      return t.app.get(DataSource);
    },
    restart: async () => {
      await t.app.close();
      t.app = await start();
    },
    close: async () => {
      await t.app.close();
      await db.drop();
    },
  };
  return t;
}
