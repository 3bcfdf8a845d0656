import { DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { ServiceKitModule } from '@bursar/service-kit';
import { WorkerSettings } from './config/worker.settings';
import { WebhookDeliveryWorker } from './delivery/webhook-delivery.worker';

/** The worker owns no database: readiness is Redis, where its queues live; it delivers webhooks. */
@Module({})
export class WorkerAppModule {
  static forRoot(settings: WorkerSettings, logger: Logger): DynamicModule {
    return {
      module: WorkerAppModule,
      imports: [ServiceKitModule.forRoot({ serviceName: 'webhook-worker', logger, redisUrl: settings.REDIS_URL })],
      providers: [{ provide: WorkerSettings, useValue: settings }, WebhookDeliveryWorker],
      exports: [WorkerSettings],
    };
  }
}
