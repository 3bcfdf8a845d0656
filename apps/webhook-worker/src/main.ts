import 'reflect-metadata';
import { bootstrap, createLogger, loadConfig, runService } from '@bursar/service-kit';
import { WorkerSettings } from './config/worker.settings';
import { createWorkerApp } from './worker.app';

bootstrap(async () => {
  const settings = loadConfig(WorkerSettings, process.env);
  const logger = createLogger('webhook-worker', settings.LOG_LEVEL);
  const app = await createWorkerApp(settings, logger);
  await runService(app, {
    name: 'webhook-worker',
    port: settings.WORKER_PORT,
    logger,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
  });
});
