import { DataSource } from 'typeorm';
import { BalancesRepository } from '../balances/balances.repository';
import { BalancesService } from '../balances/balances.service';
import { Pagination } from '../common/pagination';
import { LedgerSettings } from '../config/ledger.settings';
import { EventsRepository } from '../events/events.repository';
import { EventsService } from '../events/events.service';
import { ExternalTransactionsRepository } from '../external-transactions/external-transactions.repository';
import { ExternalTransactionsService } from '../external-transactions/external-transactions.service';
import { ReconciliationMatchesRepository } from '../external-transactions/reconciliation-matches.repository';
import { SourcesRepository } from '../sources/sources.repository';
import { SourcesService } from '../sources/sources.service';
import { StatementImportsRepository } from './statement-imports.repository';
import { StatementsService } from './statements.service';

/** What imports need of the settings: sources seal and present their inbound credentials with them. */
export type StatementsSettings = Pick<LedgerSettings, 'rootKeys' | 'publicUrl'>;

/**
 * The statements service and the (stateless) services under it, from the database, the settings
 * and the cursor keys alone: the Nest module provides it this way, and the operator CLI, which
 * runs without the container, calls it directly.
 */
export function createStatementsService(dataSource: DataSource, settings: StatementsSettings, pagination: Pagination): StatementsService {
  const events = new EventsService(new EventsRepository(dataSource), pagination);
  return new StatementsService(
    new StatementImportsRepository(dataSource),
    new SourcesService(new SourcesRepository(dataSource), pagination, settings, dataSource),
    new ExternalTransactionsService(new ExternalTransactionsRepository(dataSource), new ReconciliationMatchesRepository(dataSource), events, pagination, dataSource),
    new BalancesService(new BalancesRepository(dataSource)),
    events,
    pagination,
    dataSource,
  );
}
