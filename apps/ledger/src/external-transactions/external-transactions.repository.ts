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

/**
 * One row as the JSON object INSERT_NEW reads. A batch travels as one JSON array parameter that
 * `json_to_recordset` turns back into rows: serialized natively, where per-column array literals
 * cost the client several times as much; bulk callers hold their rows in this compact form.
 */
export function ingestRowJson(r: IngestRow): string {
  return JSON.stringify({
    external_id: r.externalId,
    amount: r.amount,
    currency: r.currency,
    occurred_at: r.occurredAt,
    account_id: r.accountId,
    reference_rail: r.referenceRail,
    reference_kind: r.referenceKind,
    reference_value: r.referenceValue,
    raw: r.raw,
  });
}

function jsonArray(rows: string[]): string {
  return `[${rows.join(',')}]`;
}

/** Rows of a JSON array of `ingestRowJson` objects ($3) into the ledger ($1) and source ($2), skipping (source, external_id) pairs already held. */
const INSERT_NEW = `INSERT INTO external_transactions AS e (ledger_id, source_id, external_id, amount, currency, occurred_at, account_id,
    reference_rail, reference_kind, reference_value, raw)
  SELECT $1, $2, t.* FROM json_to_recordset($3::json) AS t(external_id text, amount numeric, currency text, occurred_at timestamptz,
    account_id text, reference_rail text, reference_kind text, reference_value text, raw jsonb)
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
       WHERE e.ledger_id = $1 AND e.source_id = $2 AND e.external_id = ANY($4::text[])`,
      [scope.ledgerId, sourceId, jsonArray(rows.map(ingestRowJson)), rows.map((r) => r.externalId)],
    );
  }

  /**
   * Inserts the rows (`ingestRowJson` texts) whose (source, external_id) is new, in one statement,
   * and answers how many it inserted; the rest (known rows, repeats within `rows`) are left as they
   * were. For bulk callers that need no row back.
   */
  async insertNewCounting(manager: EntityManager, scope: LedgerScope, sourceId: string, rows: string[]): Promise<number> {
    const [{ created }] = await manager.query(`WITH inserted AS (${INSERT_NEW} RETURNING 1) SELECT count(*)::int AS created FROM inserted`, [
      scope.ledgerId,
      sourceId,
      jsonArray(rows),
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
