import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DELIVERY_COLUMNS, WebhookDeliveryRecord } from '@bursar/queue';
import { CONTROL_ENDPOINT_COLUMNS, ControlWebhookEndpoint } from './webhook-endpoint.record';

/** Every statement is confined to one workspace ($1) and skips deleted endpoints. */
@Injectable()
export class ControlWebhookEndpointsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(
    workspaceId: string,
    e: { id: string; url: string; description: string | null; enabledEvents: string[]; active: boolean; secretSealed: string },
  ): Promise<ControlWebhookEndpoint> {
    const [row] = await this.dataSource.query(
      `INSERT INTO webhook_endpoints (workspace_id, id, url, description, enabled_events, active, secret_sealed)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${CONTROL_ENDPOINT_COLUMNS}`,
      [workspaceId, e.id, e.url, e.description, e.enabledEvents, e.active, e.secretSealed],
    );
    return row;
  }

  /** Newest first, as control's lists are. */
  list(workspaceId: string): Promise<ControlWebhookEndpoint[]> {
    return this.dataSource.query(
      `SELECT ${CONTROL_ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL
       ORDER BY created_at DESC, id DESC`,
      [workspaceId],
    );
  }

  async find(workspaceId: string, id: string): Promise<ControlWebhookEndpoint | null> {
    const rows = await this.dataSource.query(
      `SELECT ${CONTROL_ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`,
      [workspaceId, id],
    );
    return rows[0] ?? null;
  }

  async markDeleted(workspaceId: string, id: string): Promise<boolean> {
    const [, affected] = await this.dataSource.query(
      `UPDATE webhook_endpoints SET deleted_at = clock_timestamp(), active = false
       WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`,
      [workspaceId, id],
    );
    return affected > 0;
  }

  /** The old secret keeps signing beside the new one until `previousExpiresAt`. */
  async replaceSecret(workspaceId: string, id: string, secretSealed: string, previousExpiresAt: Date): Promise<ControlWebhookEndpoint | null> {
    const [rows] = await this.dataSource.query(
      `UPDATE webhook_endpoints SET previous_secret_sealed = secret_sealed, previous_secret_expires_at = $4,
         secret_sealed = $3, updated_at = clock_timestamp()
       WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING ${CONTROL_ENDPOINT_COLUMNS}`,
      [workspaceId, id, secretSealed, previousExpiresAt],
    );
    return rows[0] ?? null;
  }

  /**
   * An endpoint's deliveries, newest first, after the delivery `startingAfter` when it is one of
   * this workspace's (else from the start, as control's lists do).
   */
  listDeliveries(workspaceId: string, endpointId: string, page: { startingAfter?: string; limit: number }): Promise<WebhookDeliveryRecord[]> {
    return this.dataSource.query(
      `WITH cursor AS (SELECT created_at, id FROM webhook_deliveries WHERE id = $3 AND workspace_id = $1)
       SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
       WHERE workspace_id = $1 AND webhook_endpoint_id = $2
         AND (NOT EXISTS (SELECT 1 FROM cursor) OR (created_at, id) < (SELECT created_at, id FROM cursor))
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [workspaceId, endpointId, page.startingAfter ?? null, page.limit],
    );
  }
}
