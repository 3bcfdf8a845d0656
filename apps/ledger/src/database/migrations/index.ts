import { TenancyAndClients1763700000000 } from './1763700000000-tenancy-and-clients';
import { IdempotencyKeys1763710000000 } from './1763710000000-idempotency-keys';
import { TenantSuspension1763710001000 } from './1763710001000-tenant-suspension';
import { Events1763720000000 } from './1763720000000-events';
import { Books1763730000000 } from './1763730000000-books';
import { Anonymizations1763780000000 } from './1763780000000-anonymizations';
import { Webhooks1763790000000 } from './1763790000000-webhooks';
import { OrganizationChanges1763800000000 } from './1763800000000-organization-changes';
import { ClosedPeriodCheckPerStatement1763810000000 } from './1763810000000-closed-period-check-per-statement';
import { Reconciliation1763820000000 } from './1763820000000-reconciliation';
import { EventsCommitOrder1763845000000 } from './1763845000000-events-commit-order';
import { ReconciliationRunRows1763850000000 } from './1763850000000-reconciliation-run-rows';
import { Exports1763865000000 } from './1763865000000-exports';
import { ReconciliationMatchesByRun1763870000000 } from './1763870000000-reconciliation-matches-by-run';
import { ReconciliationWritePath1763880000000 } from './1763880000000-reconciliation-write-path';
import { WriteBatchFunction1763890000000 } from './1763890000000-write-batch-function';
import { WebhookEndpointHeaderBrand1763890019000 } from './1763890019000-webhook-endpoint-header-brand';
import { OutboxTraceContext1763960024000 } from './1763960024000-outbox-trace-context';
import { WriteBatchTraceContext1763960025000 } from './1763960025000-write-batch-trace-context';
import { BooksEngine1763960030000 } from './1763960030000-books-engine';
import { StatementImports1763960040000 } from './1763960040000-statement-imports';
import { SourceAccountMap1763960045000 } from './1763960045000-source-account-map';
import { BooksLog1763960050000 } from './1763960050000-books-log';
import { ReconciliationHotUpdates1764200000000 } from './1764200000000-reconciliation-hot-updates';

/** Every ledger migration, in order. TypeORM records applied ones in `schema_migrations`. */
export const ledgerMigrations = [
  TenancyAndClients1763700000000,
  IdempotencyKeys1763710000000,
  TenantSuspension1763710001000,
  Events1763720000000,
  Books1763730000000,
  Anonymizations1763780000000,
  Webhooks1763790000000,
  OrganizationChanges1763800000000,
  ClosedPeriodCheckPerStatement1763810000000,
  Reconciliation1763820000000,
  EventsCommitOrder1763845000000,
  ReconciliationRunRows1763850000000,
  Exports1763865000000,
  ReconciliationMatchesByRun1763870000000,
  ReconciliationWritePath1763880000000,
  WriteBatchFunction1763890000000,
  WebhookEndpointHeaderBrand1763890019000,
  OutboxTraceContext1763960024000,
  WriteBatchTraceContext1763960025000,
  BooksEngine1763960030000,
  StatementImports1763960040000,
  SourceAccountMap1763960045000,
  BooksLog1763960050000,
  ReconciliationHotUpdates1764200000000,
];
