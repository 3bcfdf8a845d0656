import { ServiceTestApp, serviceTestApps } from '@bursar/testing';
import { LedgerSettings } from '../src/config/ledger.settings';
import { ledgerDataSourceOptions } from '../src/database/ledger-database';
import { createLedgerApp } from '../src/ledger.app';

export type LedgerTestApp = ServiceTestApp<LedgerSettings>;

/** Rate budgets high enough that no suite trips them by accident; rate-limits.e2e-spec sets its own. */
const ledgerTestApps = serviceTestApps(
  {
    name: 'ledger',
    prefix: 'LEDGER',
    settings: LedgerSettings,
    dataSource: (s) => ledgerDataSourceOptions(s.LEDGER_DATABASE_URL),
    create: createLedgerApp,
  },
  { LEDGER_RATE_LIMIT_READS_PER_SECOND: '100000', LEDGER_RATE_LIMIT_WRITES_PER_SECOND: '100000' },
);

/** The real ledger app on its own fresh, migrated database, initialised but not listening; the caller closes it. */
export const startLedgerTestApp = ledgerTestApps.start;
/** A ledger app for one describe block: started in beforeAll, closed in afterAll. */
export const ledgerAppStack = ledgerTestApps.stack;
