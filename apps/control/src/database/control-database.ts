import { DataSourceOptions } from 'typeorm';
import { typeOrmOptions } from '@bursar/service-kit';
import { controlMigrations } from './migrations';

export function controlDataSourceOptions(url: string): DataSourceOptions {
  return typeOrmOptions({ url, applicationName: 'bursar-control', entities: [], migrations: controlMigrations });
}
