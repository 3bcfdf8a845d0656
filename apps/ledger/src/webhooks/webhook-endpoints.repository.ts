import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { ENDPOINT_COLUMNS, WebhookEndpointRecord } from './webhook-endpoint.record';

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  enabledEvents?: string[];
  /** null: back to the deployment's WEBHOOK_BRAND. */
  headerBrand?: string | null;
  active?: boolean;
}

const SCOPE = 'organization_id = $1 AND ledger_id = $2 AND mode = $3 AND deleted_at IS NULL';
const scopeParams = (scope: LedgerScope) => [scope.organizationId, scope.ledgerId, scope.mode];

@Injectable()
export class WebhookEndpointsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(
    scope: LedgerScope,
    endpoint: { id: string; url: string; description: string | null; enabledEvents: string[]; headerBrand: string | null; secretSealed: string },
  ): Promise<WebhookEndpointRecord> {
    const [row] = await this.dataSource.query(
      `INSERT INTO webhook_endpoints (id, organization_id, ledger_id, mode, url, description, enabled_events, header_brand, secret_sealed)
       VALUES ($4, $1, $2, $3, $5, $6, $7, $8, $9) RETURNING ${ENDPOINT_COLUMNS}`,
      [...scopeParams(scope), endpoint.id, endpoint.url, endpoint.description, endpoint.enabledEvents, endpoint.headerBrand, endpoint.secretSealed],
    );
    return row;
  }

  list(scope: LedgerScope): Promise<WebhookEndpointRecord[]> {
    return this.dataSource.query(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE ${SCOPE} ORDER BY created_at, id`, scopeParams(scope));
  }

  async find(scope: LedgerScope, id: string): Promise<WebhookEndpointRecord | null> {
    const [row] = await this.dataSource.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE ${SCOPE} AND id = $4`,
      [...scopeParams(scope), id],
    );
    return row ?? null;
  }

  /** Applies the given fields only; returns null when the endpoint is absent. */
  async update(scope: LedgerScope, id: string, changes: EndpointChanges): Promise<WebhookEndpointRecord | null> {
    const [rows] = await this.dataSource.query(
      `UPDATE webhook_endpoints SET
         url = COALESCE($5, url),
         description = CASE WHEN $6 THEN $7 ELSE description END,
         enabled_events = COALESCE($8, enabled_events),
         active = COALESCE($9, active),
         header_brand = CASE WHEN $10 THEN $11 ELSE header_brand END,
         updated_at = clock_timestamp()
       WHERE ${SCOPE} AND id = $4 RETURNING ${ENDPOINT_COLUMNS}`,
      [
        ...scopeParams(scope), id, changes.url ?? null, changes.description !== undefined, changes.description ?? null,
        changes.enabledEvents ?? null, changes.active ?? null, changes.headerBrand !== undefined, changes.headerBrand ?? null,
      ],
    );
    return rows[0] ?? null;
  }

  async softDelete(scope: LedgerScope, id: string): Promise<boolean> {
    const [, affected] = await this.dataSource.query(
      `UPDATE webhook_endpoints SET deleted_at = clock_timestamp(), active = false WHERE ${SCOPE} AND id = $4`,
      [...scopeParams(scope), id],
    );
    return affected > 0;
  }

  /**
   * Replaces the secret in one statement, keeping the old one until `previousExpiresAt`, unless the
   * last rotation's overlap is still running (then nothing changes and null is returned), so two
   * concurrent rotations cannot both pass the check. Runs on the caller's transaction (`manager`).
   */
  async rotateSecret(
    manager: EntityManager,
    scope: LedgerScope,
    id: string,
    change: { secretSealed: string; now: Date; previousExpiresAt: Date },
  ): Promise<WebhookEndpointRecord | null> {
    const [rows] = await manager.query(
      `UPDATE webhook_endpoints SET
         previous_secret_sealed = secret_sealed, previous_secret_expires_at = $7, secret_sealed = $5, updated_at = clock_timestamp()
       WHERE ${SCOPE} AND id = $4 AND (previous_secret_expires_at IS NULL OR previous_secret_expires_at <= $6)
       RETURNING ${ENDPOINT_COLUMNS}`,
      [...scopeParams(scope), id, change.secretSealed, change.now, change.previousExpiresAt],
    );
    return rows[0] ?? null;
  }
}
