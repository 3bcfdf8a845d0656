import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';
import { LedgerScope, Mode } from '../common/mode';
import { EVENT_COLUMNS, EventRecord } from '../events/event.record';
import { POSTING_COLUMNS } from '../postings/posting.columns';
import { PostingEntity } from '../postings/posting.entity';
import { TransactionEntity } from '../transactions/transaction.entity';
import { TRANSACTION_COLUMNS } from '../transactions/transactions.repository';
import { EXPORT_COLUMNS, ExportFormat, ExportRecord, ExportResource } from './export.record';

/** A claimed export with the tenant it belongs to (the worker spans ledgers). */
export interface ClaimedExport {
  record: ExportRecord;
  scope: LedgerScope;
}

/** A transaction row with its exact place in the export's order. */
export type PositionedTransaction = TransactionEntity & { position: string };

const STALE = `x.heartbeat_at < clock_timestamp() - $1 * interval '1 millisecond'`;

@Injectable()
export class ExportsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(scope: LedgerScope, format: ExportFormat, resources: ExportResource[]): Promise<ExportRecord> {
    const [row] = await this.dataSource.query(
      `INSERT INTO exports AS x (ledger_id, format, resources) VALUES ($1, $2, $3) RETURNING ${EXPORT_COLUMNS}`,
      [scope.ledgerId, format, resources],
    );
    return row;
  }

  /** Needs only the ledger: a signed download link names it and no more. */
  async findById(scope: Pick<LedgerScope, 'ledgerId'>, id: string): Promise<ExportRecord | null> {
    const rows: ExportRecord[] = await this.dataSource.query(`SELECT ${EXPORT_COLUMNS} FROM exports x WHERE x.ledger_id = $1 AND x.id = $2`, [
      scope.ledgerId,
      id,
    ]);
    return rows[0] ?? null;
  }

  /**
   * Takes the oldest export to work on, of any tenant (the worker is the service's own
   * housekeeping, so it spans ledgers on purpose and hands back the tenant): a pending one, or a
   * running one whose heartbeat stopped (its process died). SKIP LOCKED lets replicas claim side by
   * side; the claim bumps `attempts`, the fencing token of every later write.
   */
  async claimNext(staleMs: number): Promise<ClaimedExport | null> {
    const rows: (ExportRecord & { organizationId: string; mode: Mode })[] = await this.dataSource.query(
      // A statement that ends in SELECT, so the driver answers rows (an UPDATE answers [rows, count]).
      `WITH next AS (
         SELECT x.id FROM exports x WHERE x.status = 'pending' OR (x.status = 'running' AND ${STALE})
         ORDER BY x.created_at LIMIT 1 FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE exports x SET status = 'running', attempts = x.attempts + 1, started_at = coalesce(x.started_at, clock_timestamp()),
           heartbeat_at = clock_timestamp(), updated_at = clock_timestamp()
         FROM next WHERE x.id = next.id
         RETURNING x.*)
       SELECT ${EXPORT_COLUMNS}, l.organization_id AS "organizationId", l.mode FROM claimed x JOIN ledgers l ON l.id = x.ledger_id`,
      [staleMs],
    );
    const row = rows[0];
    if (!row) return null;
    const { organizationId, mode, ...record } = row;
    return { record, scope: { organizationId, mode, ledgerId: record.ledgerId } };
  }

  async heartbeat(scope: LedgerScope, id: string, attempt: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE exports SET heartbeat_at = clock_timestamp() WHERE ledger_id = $1 AND id = $2 AND attempts = $3 AND status = 'running'`,
      [scope.ledgerId, id, attempt],
    );
  }

  /** Ends the claim `attempt` as ready (files valid until `expiresAt`) or failed; a superseded claim changes nothing. */
  async finish(scope: LedgerScope, id: string, attempt: number, outcome: { expiresAt: Date } | { errorMessage: string }): Promise<void> {
    const ready = 'expiresAt' in outcome;
    await this.dataSource.query(
      `UPDATE exports SET status = $4, expires_at = $5, error_message = $6, completed_at = clock_timestamp(), heartbeat_at = NULL,
         updated_at = clock_timestamp()
       WHERE ledger_id = $1 AND id = $2 AND attempts = $3 AND status = 'running'`,
      [scope.ledgerId, id, attempt, ready ? 'ready' : 'failed', ready ? outcome.expiresAt : null, ready ? null : outcome.errorMessage],
    );
  }

  // Keyset pages of the exported resources, read through `manager` (the export's snapshot).

  accountsAfter(manager: EntityManager, scope: LedgerScope, after: AccountEntity | null, limit: number): Promise<AccountEntity[]> {
    const qb = manager
      .getRepository(AccountEntity)
      .createQueryBuilder('a')
      .where('a.ledger_id = :ledgerId', { ledgerId: scope.ledgerId })
      .orderBy('a.id')
      .limit(limit);
    if (after) qb.andWhere('a.id > :after', { after: after.id });
    return qb.getMany();
  }

  /** Ordered by creation; `position` is created_at as text, which keeps the microseconds a Date would drop. */
  transactionsAfter(
    manager: EntityManager,
    scope: LedgerScope,
    after: PositionedTransaction | null,
    limit: number,
  ): Promise<PositionedTransaction[]> {
    return manager.query(
      `SELECT ${TRANSACTION_COLUMNS}, t.created_at::text AS position FROM transactions t
       WHERE t.ledger_id = $1 AND ($2::timestamptz IS NULL OR (t.created_at, t.id) > ($2::timestamptz, $3::uuid))
       ORDER BY t.created_at, t.id LIMIT $4`,
      [scope.ledgerId, after?.position ?? null, after?.id ?? null, limit],
    );
  }

  postingsAfter(manager: EntityManager, scope: LedgerScope, after: PostingEntity | null, limit: number): Promise<PostingEntity[]> {
    return manager.query(
      `SELECT ${POSTING_COLUMNS} FROM postings p WHERE p.ledger_id = $1 AND p.id > $2::bigint ORDER BY p.id LIMIT $3`,
      [scope.ledgerId, after?.id ?? 0, limit],
    );
  }

  /** Events in the order the tail serves them: (xid, seq). */
  eventsAfter(manager: EntityManager, scope: LedgerScope, after: EventRecord | null, limit: number): Promise<EventRecord[]> {
    return manager.query(
      `SELECT ${EVENT_COLUMNS} FROM events
       WHERE organization_id = $1 AND ledger_id = $2 AND mode = $3 AND ($4::xid8 IS NULL OR (xid, seq) > ($4::xid8, $5::bigint))
       ORDER BY events.xid, events.seq LIMIT $6`,
      [scope.organizationId, scope.ledgerId, scope.mode, after?.xid ?? null, after?.seq ?? null, limit],
    );
  }
}
