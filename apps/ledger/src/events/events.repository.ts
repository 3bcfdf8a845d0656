import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { EVENT_COLUMNS, EventRecord } from './event.record';

export interface EventFilter {
  type?: string;
  resourceId?: string;
  since?: Date;
}

export interface EventPage {
  /** Only events older than this position (exclusive), for cursor pages. */
  beforeSeq?: string;
  limit: number;
}

const FILTER = `organization_id = $1 AND ledger_id = $2 AND mode = $3
  AND ($4::text IS NULL OR type = $4)
  AND ($5::timestamptz IS NULL OR created_at >= $5)
  AND ($6::text IS NULL OR resource_id = $6)`;

function filterParams(scope: LedgerScope, filter: EventFilter): unknown[] {
  return [scope.organizationId, scope.ledgerId, scope.mode, filter.type ?? null, filter.since ?? null, filter.resourceId ?? null];
}

@Injectable()
export class EventsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs on the caller's manager so the event commits (or not) with the change it reports. */
  async insert(
    manager: EntityManager,
    scope: LedgerScope,
    event: { type: string; resourceId: string | null; data: object },
  ): Promise<EventRecord> {
    const rows: EventRecord[] = await manager.query(
      `INSERT INTO events (organization_id, ledger_id, mode, type, resource_id, data)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${EVENT_COLUMNS}`,
      [scope.organizationId, scope.ledgerId, scope.mode, event.type, event.resourceId, JSON.stringify(event.data)],
    );
    return rows[0];
  }

  /** Newest first (by `seq`, the order events were written). */
  list(scope: LedgerScope, filter: EventFilter, page: EventPage): Promise<EventRecord[]> {
    return this.dataSource.query(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE ${FILTER} AND ($7::bigint IS NULL OR seq < $7) ORDER BY seq DESC LIMIT $8`,
      [...filterParams(scope, filter), page.beforeSeq ?? null, page.limit],
    );
  }

  async count(scope: LedgerScope, filter: EventFilter): Promise<number> {
    const [row] = await this.dataSource.query(`SELECT count(*)::int AS n FROM events WHERE ${FILTER}`, filterParams(scope, filter));
    return row.n;
  }

  async findById(scope: LedgerScope, id: string): Promise<EventRecord | null> {
    const rows: EventRecord[] = await this.dataSource.query(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1 AND organization_id = $2 AND ledger_id = $3 AND mode = $4`,
      [id, scope.organizationId, scope.ledgerId, scope.mode],
    );
    return rows[0] ?? null;
  }
}
