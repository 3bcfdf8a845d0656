import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { RootKeys } from '@bursar/crypto';
import { bootstrap, loadConfig } from '@bursar/service-kit';
import { ADMIN_USAGE, AdminUsageError, runLedgerAdmin } from './admin/ledger-admin';
import { LedgerAdminSettings } from './config/ledger-admin.settings';
import { ledgerDataSourceOptions } from './database/ledger-database';

/** `pnpm ledger:admin …`: bootstraps organizations, ledgers and clients before any client exists. */
bootstrap(async () => {
  const settings = loadConfig(LedgerAdminSettings, process.env);
  const dataSource = await new DataSource(ledgerDataSourceOptions(settings.LEDGER_DATABASE_URL)).initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    const keys = settings.LEDGER_SECRET_KEY ? RootKeys.fromSettings(settings.LEDGER_SECRET_KEY, settings.LEDGER_PREVIOUS_SECRET_KEYS) : undefined;
    const result = await runLedgerAdmin(process.argv.slice(2), dataSource, keys);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (err) {
    throw err instanceof AdminUsageError ? new Error(`${err.message}\n${ADMIN_USAGE}`) : err;
  } finally {
    await dataSource.destroy();
  }
});
