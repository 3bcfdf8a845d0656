import type { Provider, Type } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { SecretBox } from '@bursar/crypto';
import { LOGGER, MetricsService } from '@bursar/service-kit';
import { RetrySchedule, retryDelaysMs } from '../retry-schedule';
import type { WebhookService } from '../webhook-job';
import { dispatcherSettings, WebhookServiceSettings } from '../webhook-settings';
import { WebhookDispatcher } from './webhook-dispatcher';
import type { WebhookOutboxTables } from './webhook-outbox.tables';

export interface ServiceWebhooks {
  service: WebhookService;
  tables: WebhookOutboxTables;
  /** Opens the endpoint secrets sealed in the service's database (its root keys' sealed-row box). */
  atRest: SecretBox;
  schedule: RetrySchedule;
}

/** Provides a service's WebhookDispatcher (Nest runs its start and stop hooks) from its settings. */
export function webhookDispatcherProvider<S extends WebhookServiceSettings>(
  settingsToken: Type<S>,
  describe: (settings: S) => ServiceWebhooks,
): Provider {
  return {
    provide: WebhookDispatcher,
    inject: [settingsToken, getDataSourceToken(), LOGGER, MetricsService],
    useFactory: (settings: S, dataSource: DataSource, logger: Logger, metrics: MetricsService) => {
      const { service, tables, atRest, schedule } = describe(settings);
      return new WebhookDispatcher({
        service,
        dataSource,
        tables,
        atRest,
        retryDelaysMs: retryDelaysMs(schedule, settings.WEBHOOK_RETRY_BASE_MS),
        logger,
        registry: metrics.registry,
        ...dispatcherSettings(settings),
      });
    },
  };
}
