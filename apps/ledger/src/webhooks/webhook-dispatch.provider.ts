import { LEDGER_RETRY_SCHEDULE, OutboxEventRow, webhookDispatcherProvider } from '@bursar/queue';
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
export const webhookDispatchProvider = webhookDispatcherProvider(LedgerSettings, (settings) => ({
  service: 'ledger',
  tables: {
    eventsTable: 'events',
    tenantColumns: ['organization_id', 'ledger_id', 'mode'],
    extraEventColumns: ['ledger_id', 'mode', 'resource_id'],
    presentEvent: eventBody,
  },
  atRest: settings.rootKeys.sealedRows(),
  schedule: LEDGER_RETRY_SCHEDULE,
}));
