import { ServiceTestApp, startServiceTestApp } from '@bursar/testing';
import { LedgerSettings } from '../src/config/ledger.settings';
import { ledgerDataSourceOptions } from '../src/database/ledger-database';
import { createLedgerApp } from '../src/ledger.app';

export type LedgerTestApp = ServiceTestApp<LedgerSettings>;

/** The real ledger app on its own fresh, migrated database, initialised but not listening. */
export function startLedgerTestApp(label: string, env: Record<string, string> = {}): Promise<LedgerTestApp> {
  return startServiceTestApp({
    name: 'ledger',
    prefix: 'LEDGER',
    settings: LedgerSettings,
    dataSource: (s) => ledgerDataSourceOptions(s.LEDGER_DATABASE_URL),
    create: createLedgerApp,
    label,
    env,
  });
}
