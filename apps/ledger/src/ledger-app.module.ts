import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { ServiceKitModule } from '@bursar/service-kit';
import { Pagination } from './common/pagination';
import { LedgerSettings } from './config/ledger.settings';
import { ledgerDataSourceOptions } from './database/ledger-database';
import { AnonymizationModule } from './anonymization/anonymization.module';
import { AccountTemplatesModule } from './account-templates/account-templates.module';
import { AccountsModule } from './accounts/accounts.module';
import { BalancesModule } from './balances/balances.module';
import { PeriodsModule } from './periods/periods.module';
import { PostingsModule } from './postings/postings.module';
import { ReportsModule } from './reports/reports.module';
import { TransactionsModule } from './transactions/transactions.module';
import { EventsModule } from './events/events.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { LedgersModule } from './ledgers/ledgers.module';
import { MetaModule } from './meta/meta.module';
import { OauthModule } from './oauth/oauth.module';
import { OrganizationsModule } from './organizations/organizations.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { ExportsModule } from './exports/exports.module';
import { SourcesModule } from './sources/sources.module';
import { ExternalTransactionsModule } from './external-transactions/external-transactions.module';
import { StatementsModule } from './statements/statements.module';
import { InboundModule } from './inbound/inbound.module';
import { ReconciliationRunsModule } from './reconciliation-runs/reconciliation-runs.module';
import { ReservesModule } from './reserves/reserves.module';
import { BooksLogModule } from './books-log/books-log.module';

@Module({})
export class LedgerAppModule {
  static forRoot(settings: LedgerSettings, logger: Logger): DynamicModule {
    return {
      module: LedgerAppModule,
      // Global so every feature module can read the settings without importing this root module.
      global: true,
      imports: [
        ServiceKitModule.forRoot({ serviceName: 'ledger', logger, redisUrl: settings.REDIS_URL }),
        TypeOrmModule.forRoot({ ...ledgerDataSourceOptions(settings.LEDGER_DATABASE_URL, logger), retryAttempts: 0 }),
        // Express tries routes in the order they were registered, one pattern match each, so the
        // busiest (new transactions) go first. No other module's route shares their paths.
        TransactionsModule,
        EventsModule,
        WebhooksModule,
        AccountTemplatesModule,
        AccountsModule,
        BalancesModule,
        PostingsModule,
        PeriodsModule,
        ReportsModule,
        IdempotencyModule,
        LedgersModule,
        MetaModule,
        OauthModule,
        OrganizationsModule,
        RateLimitModule,
        AnonymizationModule,
        SourcesModule,
        ExternalTransactionsModule,
        StatementsModule,
        InboundModule,
        ReconciliationRunsModule,
        ReservesModule,
        ExportsModule,
        BooksLogModule,
      ],
      providers: [{ provide: LedgerSettings, useValue: settings }, Pagination],
      exports: [LedgerSettings, Pagination],
    };
  }
}
