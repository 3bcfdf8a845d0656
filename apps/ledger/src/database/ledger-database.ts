import { DataSourceOptions } from 'typeorm';
import { typeOrmOptions } from '@bursar/service-kit';
import { ledgerMigrations } from './migrations';

export function ledgerDataSourceOptions(url: string): DataSourceOptions {
  return typeOrmOptions({ url, applicationName: 'bursar-ledger', entities: [], migrations: ledgerMigrations });
}
