import 'reflect-metadata';
import { bootstrap, createLogger, loadConfig, runService } from '@bursar/service-kit';
import { LedgerSettings } from './config/ledger.settings';
import { createLedgerApp } from './ledger.app';

bootstrap(async () => {
  const settings = loadConfig(LedgerSettings, process.env);
  const logger = createLogger('ledger', settings.LOG_LEVEL);
  const app = await createLedgerApp(settings, logger);
  await runService(app, {
    name: 'ledger',
    port: settings.LEDGER_PORT,
    logger,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
  });
});
