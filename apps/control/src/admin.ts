import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig, runOperatorCli, withLauncherSettings } from '@bursar/service-kit';
import { CONTROL_ADMIN, CONTROL_ADMIN_COMMANDS, runControlAdmin } from './admin/control-admin';
import { ControlAdminSettings } from './config/control-admin.settings';
import { controlDataSourceOptions } from './database/control-database';

/**
 * `pnpm control:admin …`: operator commands (key rotations) outside the HTTP API. Settings come
 * from the environment, completed from what `pnpm start` uses.
 */
runOperatorCli(CONTROL_ADMIN, CONTROL_ADMIN_COMMANDS, async (argv) => {
  const settings = loadConfig(ControlAdminSettings, withLauncherSettings(process.env));
  const dataSource = await new DataSource(controlDataSourceOptions(settings.CONTROL_DATABASE_URL)).initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    return await runControlAdmin(argv, dataSource, settings);
  } finally {
    await dataSource.destroy();
  }
});
