import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DELIVERY_COLUMNS, WebhookDeliveryRecord } from '@bursar/queue';
import { traceContextParam } from '@bursar/service-kit';
import { LedgerScope } from '../common/mode';

export interface DeliveryPage {
  status?: WebhookDeliveryRecord['status'];
  /** Position of the last row of the previous page (created_at as Postgres prints it, id). */
  after?: { key: string; id: string };
  limit: number;
}

export interface NewDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  enqueueKind: 'redelivery' | 'test_send';
  url: string;
  body: string;
  redeliversDeliveryId: string | null;
}

const SCOPE = 'organization_id = $1 AND ledger_id = $2 AND mode = $3';
const scopeParams = (scope: LedgerScope) => [scope.organizationId, scope.ledgerId, scope.mode];

@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Newest first; rows carry `position` (created_at as text) for the next cursor. */
  list(scope: LedgerScope, endpointId: string, page: DeliveryPage): Promise<(WebhookDeliveryRecord & { position: string })[]> {
    return this.dataSource.query(
      `SELECT ${DELIVERY_COLUMNS}, created_at::text AS position FROM webhook_deliveries
       WHERE ${SCOPE} AND webhook_endpoint_id = $4 AND ($5::text IS NULL OR status = $5)
         AND ($6::timestamptz IS NULL OR (created_at, id) < ($6::timestamptz, $7::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $8`,
      [...scopeParams(scope), endpointId, page.status ?? null, page.after?.key ?? null, page.after?.id ?? null, page.limit],
    );
  }

  async find(scope: LedgerScope, id: string): Promise<WebhookDeliveryRecord | null> {
    const [row] = await this.dataSource.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${SCOPE} AND id = $4`, [
      ...scopeParams(scope),
      id,
    ]);
    return row ?? null;
  }

  /** Deliveries whose retries ran out (status dead), finished at or after `since` when given. */
  async countDead(scope: LedgerScope, endpointId: string, since: Date | null): Promise<number> {
    const [row] = await this.dataSource.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries
       WHERE ${SCOPE} AND webhook_endpoint_id = $4 AND status = 'dead' AND ($5::timestamptz IS NULL OR completed_at >= $5)`,
      [...scopeParams(scope), endpointId, since],
    );
    return row.n;
  }

  /** A delivery made by hand (redelivery, test send); the relay publishes it like any other. */
  async insert(scope: LedgerScope, d: NewDelivery): Promise<WebhookDeliveryRecord> {
    const [row] = await this.dataSource.query(
      `INSERT INTO webhook_deliveries (id, organization_id, ledger_id, mode, webhook_endpoint_id, event_id, event_type,
         enqueue_kind, request_url, request_body, redelivers_delivery_id, trace_context)
       VALUES ($4, $1, $2, $3, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ${DELIVERY_COLUMNS}`,
      [...scopeParams(scope), d.id, d.endpointId, d.eventId, d.eventType, d.enqueueKind, d.url, d.body, d.redeliversDeliveryId, traceContextParam()],
    );
    return row;
  }
}
