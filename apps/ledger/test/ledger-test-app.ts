import type { INestApplication } from '@nestjs/common';
import { createLogger, loadConfig, runMigrations } from '@bursar/service-kit';
import { createTestDatabase, testRedisUrl, testSecretKey, TestDatabase } from '@bursar/testing';
import { LedgerSettings } from '../src/config/ledger.settings';
import { ledgerDataSourceOptions } from '../src/database/ledger-database';
import { createLedgerApp } from '../src/ledger.app';

export interface LedgerTestApp {
  app: INestApplication;
  settings: LedgerSettings;
  close(): Promise<void>;
}

/** The real ledger app on its own fresh, migrated database, initialised but not listening. */
export async function startLedgerTestApp(label: string, env: Record<string, string> = {}): Promise<LedgerTestApp> {
  const db: TestDatabase = await createTestDatabase(`ledger_${label}`);
  const settings = loadConfig(LedgerSettings, {
    LEDGER_DATABASE_URL: db.url,
    LEDGER_SECRET_KEY: testSecretKey(),
    REDIS_URL: testRedisUrl(),
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    ...env,
  });
  await runMigrations(ledgerDataSourceOptions(settings.LEDGER_DATABASE_URL));
  const app = await createLedgerApp(settings, createLogger('ledger', settings.LOG_LEVEL));
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
