import { CONTROL_RETRY_SCHEDULE, OutboxEventRow, webhookDispatcherProvider } from '@bursar/queue';
import { ControlSettings } from '../config/control.settings';
import { presentWebhookEvent } from './webhook-event.record';

/** Control's relay (webhook events -> deliveries -> jobs) and results consumer, on the reference's schedule. */
export const controlWebhookDispatchProvider = webhookDispatcherProvider(ControlSettings, (settings) => ({
  service: 'control',
  tables: {
    eventsTable: 'webhook_events',
    tenantColumns: ['workspace_id'],
    extraEventColumns: [],
    presentEvent: (row: OutboxEventRow) =>
      JSON.stringify(presentWebhookEvent({ id: row.id, type: row.type, createdAt: row.created_at, data: row.data })),
  },
  atRest: settings.rootKeys.sealedRows(),
  schedule: CONTROL_RETRY_SCHEDULE,
}));
