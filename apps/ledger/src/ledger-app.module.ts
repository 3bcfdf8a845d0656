import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { ServiceKitModule } from '@bursar/service-kit';
import { LedgerSettings } from './config/ledger.settings';
import { ledgerDataSourceOptions } from './database/ledger-database';
import { OauthModule } from './oauth/oauth.module';
import { OrganizationsModule } from './organizations/organizations.module';

@Module({})
export class LedgerAppModule {
  static forRoot(settings: LedgerSettings, logger: Logger): DynamicModule {
    return {
      module: LedgerAppModule,
      // Global so every feature module can read the settings without importing this root module.
      global: true,
      imports: [
        ServiceKitModule.forRoot({ serviceName: 'ledger', logger, redisUrl: settings.REDIS_URL }),
        TypeOrmModule.forRoot({ ...ledgerDataSourceOptions(settings.LEDGER_DATABASE_URL), retryAttempts: 0 }),
        OauthModule,
        OrganizationsModule,
      ],
      providers: [{ provide: LedgerSettings, useValue: settings }],
      exports: [LedgerSettings],
    };
  }
}
