import type { Logger } from 'pino';
import { DataSourceOptions } from 'typeorm';
import { typeOrmOptions } from '@bursar/service-kit';
import { BOOKS_ENTITIES } from '../accounts/books-entities';
import { LedgerEntity } from '../ledgers/ledger.entity';
import { OauthClientEntity } from '../oauth-clients/oauth-client.entity';
import { OrganizationEntity } from '../organizations/organization.entity';
import { ledgerMigrations } from './migrations';

export function ledgerDataSourceOptions(url: string, logger?: Logger): DataSourceOptions {
  return typeOrmOptions({
    url,
    logger,
    applicationName: 'bursar-ledger',
    entities: [OrganizationEntity, LedgerEntity, OauthClientEntity, ...BOOKS_ENTITIES],
    migrations: ledgerMigrations,
  });
}
