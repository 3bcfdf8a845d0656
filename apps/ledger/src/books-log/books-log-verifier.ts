import type { DataSource } from 'typeorm';
import { LogStore, type LogVerification, publishedKeys, verifyLogInSnapshot } from '@bursar/service-kit';
import { LogChangesRepository } from './log-changes.repository';

/**
 * Every ledger's books log (or one ledger's) checked against the rows it was sealed from, with the
 * published keys only: `ledger:admin verify-log`.
 */
export async function verifyBooksLogs(dataSource: DataSource, ledgerId?: string): Promise<LogVerification[]> {
  const em = dataSource.manager;
  const source = new LogChangesRepository();
  const keys = await publishedKeys(em, 'log_signing_keys');
  const deps = { store: new LogStore(dataSource), source, subject: 'ledger_id' as const, keyFor: (kid: string) => Promise.resolve(keys.get(kid)) };
  const out: LogVerification[] = [];
  for (const id of ledgerId ? [ledgerId] : await source.allLedgerIds(em)) out.push(await verifyLogInSnapshot(dataSource, deps, id));
  return out;
}
