import { Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { SecretBox } from '@bursar/crypto';
import { CONTROL_RETRY_SCHEDULE, dispatcherSettings, OutboxEventRow, retryDelaysMs, WebhookDispatcher } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { ControlSettings } from '../config/control.settings';
import { presentWebhookEvent } from './webhook-event.record';

/** Control's relay (webhook events -> deliveries -> jobs) and results consumer, on the reference's schedule. */
export const controlWebhookDispatchProvider: Provider = {
  provide: WebhookDispatcher,
  inject: [ControlSettings, getDataSourceToken(), LOGGER],
  useFactory: (settings: ControlSettings, dataSource: DataSource, logger: Logger) =>
    new WebhookDispatcher({
      service: 'control',
      dataSource,
      tables: {
        eventsTable: 'webhook_events',
        tenantColumns: ['workspace_id'],
        extraEventColumns: [],
        presentEvent: (row: OutboxEventRow) =>
          JSON.stringify(presentWebhookEvent({ id: row.id, type: row.type, createdAt: row.created_at, data: row.data })),
      },
      atRest: SecretBox.fromBase64(settings.CONTROL_SECRET_KEY),
      retryDelaysMs: retryDelaysMs(CONTROL_RETRY_SCHEDULE, settings.WEBHOOK_RETRY_BASE_MS),
      logger,
      ...dispatcherSettings(settings),
    }),
};
