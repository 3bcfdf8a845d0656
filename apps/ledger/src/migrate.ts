import 'reflect-metadata';
import { bootstrap, createLogger, loadConfig, runMigrations } from '@bursar/service-kit';
import { LedgerSettings } from './config/ledger.settings';
import { ledgerDataSourceOptions } from './database/ledger-database';

bootstrap(async () => {
  const settings = loadConfig(LedgerSettings, process.env);
  const applied = await runMigrations(ledgerDataSourceOptions(settings.LEDGER_DATABASE_URL));
  createLogger('ledger', settings.LOG_LEVEL).info({ applied }, 'ledger migrations applied');
});
