import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { RootKeys } from '@bursar/crypto';
import { loadConfig, runOperatorCli, withLauncherSettings } from '@bursar/service-kit';
import { LEDGER_ADMIN, LEDGER_ADMIN_COMMANDS, runLedgerAdmin } from './admin/ledger-admin';
import { LedgerAdminSettings } from './config/ledger-admin.settings';
import { ledgerDataSourceOptions } from './database/ledger-database';

/**
 * `pnpm ledger:admin …`: bootstraps organizations, ledgers and clients before any client exists.
 * Settings come from the environment, completed from what `pnpm start` uses.
 */
runOperatorCli(LEDGER_ADMIN, LEDGER_ADMIN_COMMANDS, async (argv) => {
  const settings = loadConfig(LedgerAdminSettings, withLauncherSettings(process.env));
  const dataSource = await new DataSource(ledgerDataSourceOptions(settings.LEDGER_DATABASE_URL)).initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    const keys = settings.LEDGER_SECRET_KEY ? RootKeys.fromSettings(settings.LEDGER_SECRET_KEY, settings.LEDGER_PREVIOUS_SECRET_KEYS) : undefined;
    return await runLedgerAdmin(argv, dataSource, { keys, publicUrl: settings.LEDGER_PUBLIC_URL?.replace(/\/+$/, '') });
  } finally {
    await dataSource.destroy();
  }
});
