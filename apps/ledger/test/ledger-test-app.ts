import { ServiceTestApp, startServiceTestApp } from '@bursar/testing';
import { LedgerSettings } from '../src/config/ledger.settings';
import { ledgerDataSourceOptions } from '../src/database/ledger-database';
import { createLedgerApp } from '../src/ledger.app';

export type LedgerTestApp = ServiceTestApp<LedgerSettings>;

/**
 * Budgets high enough that no suite trips them by accident; rate-limits.e2e-spec sets its own.
 */
const UNTHROTTLED = { LEDGER_RATE_LIMIT_READS_PER_SECOND: '100000', LEDGER_RATE_LIMIT_WRITES_PER_SECOND: '100000' };

/** The real ledger app on its own fresh, migrated database, initialised but not listening. */
export function startLedgerTestApp(label: string, env: Record<string, string> = {}): Promise<LedgerTestApp> {
  return startServiceTestApp({
    name: 'ledger',
    prefix: 'LEDGER',
    settings: LedgerSettings,
    dataSource: (s) => ledgerDataSourceOptions(s.LEDGER_DATABASE_URL),
    create: createLedgerApp,
    label,
    env: { ...UNTHROTTLED, ...env },
  });
}
