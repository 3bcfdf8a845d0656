import type { INestApplication } from '@nestjs/common';
import { createLogger, loadConfig, runMigrations } from '@bursar/service-kit';
import { createTestDatabase, testRedisUrl, testSecretKey, TestDatabase } from '@bursar/testing';
import { ControlSettings } from '../src/config/control.settings';
import { controlDataSourceOptions } from '../src/database/control-database';
import { createControlApp } from '../src/control.app';

export interface ControlTestApp {
  app: INestApplication;
  settings: ControlSettings;
  close(): Promise<void>;
}

/** The real control app on its own fresh, migrated database, initialised but not listening. */
export async function startControlTestApp(label: string, env: Record<string, string> = {}): Promise<ControlTestApp> {
  const db: TestDatabase = await createTestDatabase(`control_${label}`);
  const settings = loadConfig(ControlSettings, {
    CONTROL_DATABASE_URL: db.url,
    CONTROL_SECRET_KEY: testSecretKey(),
    REDIS_URL: testRedisUrl(),
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    ...env,
  });
  await runMigrations(controlDataSourceOptions(settings.CONTROL_DATABASE_URL));
  const app = await createControlApp(settings, createLogger('control', settings.LOG_LEVEL));
  await app.init();
  return {
    app,
    settings,
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
