import { Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { SecretBox } from '@bursar/crypto';
import { dispatcherSettings, LEDGER_RETRY_SCHEDULE, OutboxEventRow, retryDelaysMs, WebhookDispatcher } from '@bursar/queue';
import { LOGGER } from '@bursar/service-kit';
import { LedgerSettings } from '../config/ledger.settings';
import { Mode } from '../common/mode';
import { presentEvent } from '../events/event.record';

/** The delivery body of a ledger event: the same object the events tail serves. */
function eventBody(row: OutboxEventRow): string {
  return JSON.stringify(
    presentEvent({
      id: row.id,
      ledgerId: String(row.ledger_id),
      mode: row.mode as Mode,
      type: row.type,
      resourceId: (row.resource_id as string | null) ?? null,
      data: row.data,
      createdAt: row.created_at,
    }),
  );
}

/** The ledger's relay (events -> deliveries -> jobs) and results consumer, on the contract's schedule. */
export const webhookDispatchProvider: Provider = {
  provide: WebhookDispatcher,
  inject: [LedgerSettings, getDataSourceToken(), LOGGER],
  useFactory: (settings: LedgerSettings, dataSource: DataSource, logger: Logger) =>
    new WebhookDispatcher({
      service: 'ledger',
      dataSource,
      tables: {
        eventsTable: 'events',
        tenantColumns: ['organization_id', 'ledger_id', 'mode'],
        extraEventColumns: ['ledger_id', 'mode', 'resource_id'],
        presentEvent: eventBody,
      },
      atRest: SecretBox.fromBase64(settings.LEDGER_SECRET_KEY),
      retryDelaysMs: retryDelaysMs(LEDGER_RETRY_SCHEDULE, settings.WEBHOOK_RETRY_BASE_MS),
      logger,
      ...dispatcherSettings(settings),
    }),
};
