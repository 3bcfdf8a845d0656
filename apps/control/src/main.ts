import 'reflect-metadata';
import { bootstrap, createLogger, loadConfig, runService } from '@bursar/service-kit';
import { ControlSettings } from './config/control.settings';
import { createControlApp } from './control.app';

bootstrap(async () => {
  const settings = loadConfig(ControlSettings, process.env);
  const logger = createLogger('control', settings.LOG_LEVEL);
  const app = await createControlApp(settings, logger);
  await runService(app, {
    name: 'control',
    port: settings.CONTROL_PORT,
    logger,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
  });
});
