import 'reflect-metadata';
import { bootstrap, createLogger, loadConfig, runMigrations } from '@bursar/service-kit';
import { ControlSettings } from './config/control.settings';
import { controlDataSourceOptions } from './database/control-database';

bootstrap(async () => {
  const settings = loadConfig(ControlSettings, process.env);
  const applied = await runMigrations(controlDataSourceOptions(settings.CONTROL_DATABASE_URL));
  createLogger('control', settings.LOG_LEVEL).info({ applied }, 'control migrations applied');
});
