import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DELIVERY_COLUMNS, WebhookDeliveryRecord } from '@bursar/queue';
import { CONTROL_ENDPOINT_COLUMNS, ControlWebhookEndpoint } from './webhook-endpoint.record';

/** A page of a list: rows after the record `startingAfter`, at most `limit` of them. */
export interface KeysetPage {
  startingAfter?: string;
  limit: number;
}

/**
 * Rows after the cursor row in (created_at, id) descending order. The cursor is looked up in the
 * same workspace ($1), so an unknown or foreign id matches every row: the first page, as control's
 * lists answer.
 */
function afterCursor(table: string, cursorParam: string): string {
  const cursor = `SELECT c.created_at, c.id FROM ${table} c WHERE c.id = ${cursorParam}::uuid AND c.workspace_id = $1`;
  return `(NOT EXISTS (${cursor}) OR (created_at, id) < (${cursor}))`;
}

/** Every statement is confined to one workspace ($1) and skips deleted endpoints. */
@Injectable()
export class ControlWebhookEndpointsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(
    workspaceId: string,
    e: { id: string; url: string; description: string | null; enabledEvents: string[]; active: boolean; headerBrand: string | null; secretSealed: string },
  ): Promise<ControlWebhookEndpoint> {
    const [row] = await this.dataSource.query(
      `INSERT INTO webhook_endpoints (workspace_id, id, url, description, enabled_events, active, header_brand, secret_sealed)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${CONTROL_ENDPOINT_COLUMNS}`,
      [workspaceId, e.id, e.url, e.description, e.enabledEvents, e.active, e.headerBrand, e.secretSealed],
    );
    return row;
  }

  /** One page of the workspace's endpoints, newest first, as control's lists are. */
  list(workspaceId: string, page: KeysetPage): Promise<ControlWebhookEndpoint[]> {
    return this.dataSource.query(
      `SELECT ${CONTROL_ENDPOINT_COLUMNS} FROM webhook_endpoints
       WHERE workspace_id = $1 AND deleted_at IS NULL AND ${afterCursor('webhook_endpoints', '$2')}
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      [workspaceId, page.startingAfter ?? null, page.limit],
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

  /** One page of an endpoint's deliveries, newest first. */
  listDeliveries(workspaceId: string, endpointId: string, page: KeysetPage): Promise<WebhookDeliveryRecord[]> {
    return this.dataSource.query(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
       WHERE workspace_id = $1 AND webhook_endpoint_id = $4 AND ${afterCursor('webhook_deliveries', '$2')}
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      [workspaceId, page.startingAfter ?? null, page.limit, endpointId],
    );
  }
}
