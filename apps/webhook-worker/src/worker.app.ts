import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { ErrorRenderer } from '@bursar/errors';
import { createHttpApp } from '@bursar/service-kit';
import { WorkerSettings } from './config/worker.settings';
import { WorkerAppModule } from './worker-app.module';

/** The worker's port is for operators only, so its errors stay minimal. */
const renderer: ErrorRenderer = {
  render: (error) => ({ status: error.status, body: { error: { message: error.kind === 'internal' ? 'Internal error' : error.message } } }),
};

export function createWorkerApp(settings: WorkerSettings, logger: Logger): Promise<INestApplication> {
  return createHttpApp(WorkerAppModule.forRoot(settings, logger), { logger, renderer });
}
