import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { bootstrap, loadConfig } from '@bursar/service-kit';
import { ADMIN_USAGE, AdminUsageError, runControlAdmin } from './admin/control-admin';
import { ControlAdminSettings } from './config/control-admin.settings';
import { controlDataSourceOptions } from './database/control-database';

/** `pnpm control:admin …`: operator commands (cosigning key rotation) outside the HTTP API. */
bootstrap(async () => {
  const settings = loadConfig(ControlAdminSettings, process.env);
  const dataSource = await new DataSource(controlDataSourceOptions(settings.CONTROL_DATABASE_URL)).initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    const result = await runControlAdmin(process.argv.slice(2), dataSource, settings);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (err) {
    throw err instanceof AdminUsageError ? new Error(`${err.message}\n${ADMIN_USAGE}`) : err;
  } finally {
    await dataSource.destroy();
  }
});
