import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { Position } from '../common/pagination';
import { EXTERNAL_TRANSACTION_COLUMNS, ExternalTransactionRecord, ExternalTransactionStatus } from './external-transaction.record';
import { IngestRow } from './ingest-item';

export interface ExternalTransactionFilter {
  status?: ExternalTransactionStatus;
  sourceId?: string;
  currency?: string;
  /** occurred_at at or after. */
  from?: Date;
  /** occurred_at before. */
  to?: Date;
}

/** The column arrays `unnest` turns back into rows: one bind parameter per column, whatever the row count. */
function columnsOf(rows: IngestRow[]) {
  return [
    rows.map((r) => r.externalId),
    rows.map((r) => r.amount),
    rows.map((r) => r.currency),
    rows.map((r) => r.occurredAt.toISOString()),
    rows.map((r) => r.accountId),
    rows.map((r) => r.referenceRail),
    rows.map((r) => r.referenceKind),
    rows.map((r) => r.referenceValue),
    rows.map((r) => (r.raw === null ? null : JSON.stringify(r.raw))),
  ];
}

/** Rows of `columnsOf` ($3..$11) into the ledger ($1) and source ($2), skipping (source, external_id) pairs already held. */
const INSERT_NEW = `INSERT INTO external_transactions AS e (ledger_id, source_id, external_id, amount, currency, occurred_at, account_id,
    reference_rail, reference_kind, reference_value, raw)
  SELECT $1, $2, t.* FROM unnest($3::text[], $4::numeric[], $5::text[], $6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::text[], $11::jsonb[])
    AS t(external_id, amount, currency, occurred_at, account_id, reference_rail, reference_kind, reference_value, raw)
  ON CONFLICT (source_id, external_id) DO NOTHING`;

@Injectable()
export class ExternalTransactionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts the rows whose (source, external_id) is new and reads back the ones that already
   * existed, in one statement; existing rows are never changed. `created` tells the two apart. The
   * statement's snapshot predates the insert, so the read half returns only earlier rows; a row a
   * concurrent call commits meanwhile is in neither half, and is read by `findByExternalIds`.
   */
  insertNew(
    manager: EntityManager,
    scope: LedgerScope,
    sourceId: string,
    rows: IngestRow[],
  ): Promise<(ExternalTransactionRecord & { created: boolean })[]> {
    return manager.query(
      `WITH inserted AS (${INSERT_NEW} RETURNING ${EXTERNAL_TRANSACTION_COLUMNS})
       SELECT *, true AS created FROM inserted
       UNION ALL
       SELECT ${EXTERNAL_TRANSACTION_COLUMNS}, false AS created FROM external_transactions e
       WHERE e.ledger_id = $1 AND e.source_id = $2 AND e.external_id = ANY($3::text[])`,
      [scope.ledgerId, sourceId, ...columnsOf(rows)],
    );
  }

  /**
   * Inserts the rows whose (source, external_id) is new, in one statement, and answers how many it
   * inserted; the rest (known rows, repeats within `rows`) are left as they were. For bulk callers
   * that need no row back.
   */
  async insertNewCounting(manager: EntityManager, scope: LedgerScope, sourceId: string, rows: IngestRow[]): Promise<number> {
    const [{ created }] = await manager.query(`WITH inserted AS (${INSERT_NEW} RETURNING 1) SELECT count(*)::int AS created FROM inserted`, [
      scope.ledgerId,
      sourceId,
      ...columnsOf(rows),
    ]);
    return created;
  }

  findByExternalIds(manager: EntityManager, scope: LedgerScope, sourceId: string, externalIds: string[]): Promise<ExternalTransactionRecord[]> {
    return manager.query(
      `SELECT ${EXTERNAL_TRANSACTION_COLUMNS} FROM external_transactions e
       WHERE e.ledger_id = $1 AND e.source_id = $2 AND e.external_id = ANY($3::text[])`,
      [scope.ledgerId, sourceId, externalIds],
    );
  }

  async find(scope: LedgerScope, id: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<ExternalTransactionRecord | null> {
    const [row] = await manager.query(
      `SELECT ${EXTERNAL_TRANSACTION_COLUMNS} FROM external_transactions e WHERE e.ledger_id = $1 AND e.id = $2${lock ? ' FOR UPDATE' : ''}`,
      [scope.ledgerId, id],
    );
    return row ?? null;
  }

  /** Moves the (locked) row to `matched` under `matchId`. */
  async markMatched(manager: EntityManager, scope: LedgerScope, id: string, matchId: string, runId: string | null): Promise<ExternalTransactionRecord> {
    return this.setState(manager, scope, id, `status = 'matched', matched_at = clock_timestamp(), reconciliation_match_id = $3,
      reconciliation_run_id = $4, ignored_reason = NULL`, [matchId, runId]);
  }

  /** Back to `open`, free for another match. */
  reopen(manager: EntityManager, scope: LedgerScope, id: string): Promise<ExternalTransactionRecord> {
    return this.setState(manager, scope, id, `status = 'open', matched_at = NULL, reconciliation_match_id = NULL, reconciliation_run_id = NULL`, []);
  }

  markIgnored(manager: EntityManager, scope: LedgerScope, id: string, reason: string | null): Promise<ExternalTransactionRecord> {
    return this.setState(manager, scope, id, `status = 'ignored', ignored_reason = $3`, [reason]);
  }

  private async setState(manager: EntityManager, scope: LedgerScope, id: string, set: string, params: unknown[]): Promise<ExternalTransactionRecord> {
    const [rows] = await manager.query(
      `UPDATE external_transactions e SET ${set}, updated_at = clock_timestamp() WHERE e.ledger_id = $1 AND e.id = $2
       RETURNING ${EXTERNAL_TRANSACTION_COLUMNS}`,
      [scope.ledgerId, id, ...params],
    );
    return rows[0];
  }

  /** Newest first (by creation: the ledger's index), `limit` rows after `after`. */
  list(
    scope: LedgerScope,
    filter: ExternalTransactionFilter,
    after: Position | undefined,
    limit: number,
  ): Promise<(ExternalTransactionRecord & { sortKey: string })[]> {
    const { where, params } = this.filtered(scope, filter);
    const afterParams = after ? [after.key, after.id] : [];
    const afterClause = after ? ` AND (e.created_at, e.id) < ($${params.length + 1}::timestamptz, $${params.length + 2}::uuid)` : '';
    return this.dataSource.query(
      `SELECT ${EXTERNAL_TRANSACTION_COLUMNS}, e.created_at::text AS "sortKey" FROM external_transactions e
       WHERE ${where}${afterClause} ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length + afterParams.length + 1}`,
      [...params, ...afterParams, limit],
    );
  }

  async count(scope: LedgerScope, filter: ExternalTransactionFilter): Promise<number> {
    const { where, params } = this.filtered(scope, filter);
    const [row] = await this.dataSource.query(`SELECT count(*)::int AS n FROM external_transactions e WHERE ${where}`, params);
    return row.n;
  }

  private filtered(scope: LedgerScope, filter: ExternalTransactionFilter): { where: string; params: unknown[] } {
    const params: unknown[] = [scope.ledgerId];
    const clauses = ['e.ledger_id = $1'];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      clauses.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.status !== undefined) add('e.status = ?', filter.status);
    if (filter.sourceId !== undefined) add('e.source_id = ?', filter.sourceId);
    if (filter.currency !== undefined) add('e.currency = ?', filter.currency);
    if (filter.from !== undefined) add('e.occurred_at >= ?', filter.from);
    if (filter.to !== undefined) add('e.occurred_at < ?', filter.to);
    return { where: clauses.join(' AND '), params };
  }
}
