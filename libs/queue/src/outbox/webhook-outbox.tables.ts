import type { TraceCarrier } from '@bursar/service-kit';

/**
 * Both services keep webhooks in tables of one layout (webhook_endpoints, webhook_deliveries,
 * webhook_delivery_attempts) beside an events table; only the tenant columns and the events table
 * differ. This describes them, so the outbox SQL lives once.
 */
export interface WebhookOutboxTables {
  /** The events log: id, seq, type, created_at, data, relayed_at plus the tenant columns. */
  eventsTable: string;
  /** Columns that tie an event to its tenant, present with the same names on endpoints and deliveries. */
  tenantColumns: string[];
  /** Extra event columns the body needs (beside id, type, created_at, data). */
  extraEventColumns: string[];
  /** The exact delivery body of an event row. */
  presentEvent(row: OutboxEventRow): string;
}

export interface OutboxEventRow {
  id: string;
  type: string;
  created_at: Date;
  data: Record<string, unknown>;
  [column: string]: unknown;
}

/** A delivery ready to publish, with what its job needs. */
export interface UnpublishedDelivery {
  id: string;
  eventId: string;
  url: string;
  body: string;
  endpointId: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  /** The endpoint's own header prefix; null: the service's WEBHOOK_BRAND. */
  headerBrand: string | null;
  /** Attempts already recorded for the delivery. */
  attemptsMade: number;
  /** Trace context of the request that caused the delivery; null when it was not traced. */
  traceContext: TraceCarrier | null;
}
