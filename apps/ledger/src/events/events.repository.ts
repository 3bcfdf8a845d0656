import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { COMMIT_FRONTIER_SQL, traceContextParam } from '@bursar/service-kit';
import { LedgerScope } from '../common/mode';
import { EVENT_COLUMNS, EventRecord } from './event.record';

export interface EventFilter {
  type?: string;
  resourceId?: string;
  since?: Date;
}

/** Where an event sits in the tail: its writing transaction's id, then its `seq`. */
export interface EventPosition {
  xid: string;
  seq: string;
}

export interface EventPage {
  /** `newest_first` reads positions before `from`, `oldest_first` (tailing) positions after it; both exclusive. */
  direction: 'newest_first' | 'oldest_first';
  from?: EventPosition;
  limit: number;
}

const FILTER = `organization_id = $1 AND ledger_id = $2 AND mode = $3
  AND ($4::text IS NULL OR type = $4)
  AND ($5::timestamptz IS NULL OR created_at >= $5)
  AND ($6::text IS NULL OR resource_id = $6)`;

/** Events are served in commit order up to the frontier (see COMMIT_FRONTIER_SQL). */
const BOUNDS = COMMIT_FRONTIER_SQL;

/**
 * One page in either direction, with the snapshot's bounds. The lateral join still answers one
 * row, of nulls, when no event matches, so the bounds always come back.
 */
function pageSql(direction: EventPage['direction'], from: boolean): string {
  const [cmp, order] = direction === 'oldest_first' ? ['>', 'ASC'] : ['<', 'DESC'];
  return `WITH b AS MATERIALIZED (${BOUNDS})
    SELECT b.frontier::text AS frontier, b.horizon::text AS horizon, e.*
    FROM b
    LEFT JOIN LATERAL (
      SELECT ${EVENT_COLUMNS} FROM events
      WHERE ${FILTER} AND xid < b.frontier ${from ? `AND (xid, seq) ${cmp} ($8::xid8, $9::bigint)` : ''}
      -- Qualified: a bare name would sort by the text output column, putting 999 above 1000.
      ORDER BY events.xid ${order}, events.seq ${order} LIMIT $7
    ) e ON true
    ORDER BY e.xid::xid8 ${order}, e.seq::bigint ${order}`;
}

const PAGE_SQL = {
  newest_first: { start: pageSql('newest_first', false), from: pageSql('newest_first', true) },
  oldest_first: { start: pageSql('oldest_first', false), from: pageSql('oldest_first', true) },
};

/**
 * How long a read waits for transactions that were already in flight when it arrived, so a
 * client sees its own committed writes; past this it answers with what is servable.
 */
const SETTLE_MS = 250;

function filterParams(scope: LedgerScope, filter: EventFilter): unknown[] {
  return [scope.organizationId, scope.ledgerId, scope.mode, filter.type ?? null, filter.since ?? null, filter.resourceId ?? null];
}

type PageRow = EventRecord & { frontier: string; horizon: string };

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
      `INSERT INTO events (organization_id, ledger_id, mode, type, resource_id, data, trace_context)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${EVENT_COLUMNS}`,
      [scope.organizationId, scope.ledgerId, scope.mode, event.type, event.resourceId, JSON.stringify(event.data), traceContextParam()],
    );
    return rows[0];
  }

  /**
   * One page of servable events (below the frontier, see BOUNDS) in position order. Transactions in flight when the
   * read began may still commit events that belong before the page's end; it waits for them (up
   * to SETTLE_MS) so that a client's own committed writes show.
   */
  async list(scope: LedgerScope, filter: EventFilter, page: EventPage): Promise<EventRecord[]> {
    const sql = PAGE_SQL[page.direction][page.from ? 'from' : 'start'];
    const params = [...filterParams(scope, filter), page.limit, ...(page.from ? [page.from.xid, page.from.seq] : [])];
    const deadline = Date.now() + SETTLE_MS;
    let horizon: bigint | undefined;
    for (let pause = 2; ; pause = Math.min(pause * 2, 25)) {
      const rows: PageRow[] = await this.dataSource.query(sql, params);
      horizon ??= BigInt(rows[0].horizon);
      if (BigInt(rows[0].frontier) >= horizon || Date.now() >= deadline) {
        return rows.filter((r) => r.id !== null).map(({ frontier: _f, horizon: _h, ...event }) => event);
      }
      await sleep(pause);
    }
  }

  async count(scope: LedgerScope, filter: EventFilter): Promise<number> {
    const [row] = await this.dataSource.query(
      `SELECT count(*)::int AS n FROM events, (${BOUNDS}) b WHERE ${FILTER} AND xid < b.frontier`,
      filterParams(scope, filter),
    );
    return row.n;
  }

  /**
   * Seconds since the oldest open transaction of this database holding a transaction id began
   * (prepared ones included), 0 with none. While it stays open the tail's frontier (see BOUNDS)
   * cannot pass its id, so nothing committed after it is served; its start bounds how long that is.
   */
  async tailHeldBackSeconds(): Promise<number> {
    const [row] = await this.dataSource.query(
      `SELECT coalesce(extract(epoch FROM clock_timestamp() - min(started)), 0)::float8 AS seconds FROM (
         SELECT xact_start AS started FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL
         UNION ALL
         SELECT prepared FROM pg_prepared_xacts WHERE database = current_database()) t`,
    );
    return row.seconds;
  }

  async findById(scope: LedgerScope, id: string): Promise<EventRecord | null> {
    const rows: EventRecord[] = await this.dataSource.query(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1 AND organization_id = $2 AND ledger_id = $3 AND mode = $4`,
      [id, scope.organizationId, scope.ledgerId, scope.mode],
    );
    return rows[0] ?? null;
  }
}
