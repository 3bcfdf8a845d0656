import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { POSTING_COLUMNS } from '../postings/posting.columns';
import { PostingEntity } from '../postings/posting.entity';
import { MATCH_COLUMNS, ReconciliationMatchRecord } from './reconciliation-match.record';

/** What a manual match needs to know of a candidate posting. */
export interface MatchCandidate {
  id: string;
  amount: string;
  currency: string;
  direction: 'debit' | 'credit';
  pending: boolean;
  voidedAt: Date | null;
  reconciledAt: Date | null;
}

/**
 * Matches and what they hold. Every method runs on the caller's transaction (`manager`): a match
 * writes the match, its posting rows, the postings' reconciled_at and the external row together.
 */
@Injectable()
export class ReconciliationMatchesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The postings of this ledger among `ids`, locked in id order (so two matches cannot deadlock). */
  lockPostings(manager: EntityManager, scope: LedgerScope, ids: string[]): Promise<MatchCandidate[]> {
    return manager.query(
      `SELECT id::text AS id, amount::text AS amount, currency, direction, pending, voided_at AS "voidedAt", reconciled_at AS "reconciledAt"
       FROM postings WHERE ledger_id = $1 AND id = ANY($2::bigint[]) ORDER BY postings.id FOR UPDATE`,
      [scope.ledgerId, ids],
    );
  }

  /**
   * Records the match and ties the postings to it. The live-posting unique index refuses a posting
   * another live match holds, whatever the interleaving.
   */
  async insert(
    manager: EntityManager,
    scope: LedgerScope,
    match: { externalTransactionId: string; runId: string | null; strategy: ReconciliationMatchRecord['strategy']; postingIds: string[];
      amount: string; currency: string; residual: string; autoResolved: boolean; note: string | null },
  ): Promise<ReconciliationMatchRecord> {
    const [row] = await manager.query(
      `INSERT INTO reconciliation_matches AS m (ledger_id, external_transaction_id, reconciliation_run_id, strategy, posting_ids, amount,
         currency, residual, auto_resolved, note)
       VALUES ($1, $2, $3, $4, $5::bigint[], $6, $7, $8, $9, $10) RETURNING ${MATCH_COLUMNS}`,
      [scope.ledgerId, match.externalTransactionId, match.runId, match.strategy, match.postingIds, match.amount, match.currency,
        match.residual, match.autoResolved, match.note],
    );
    await manager.query(
      `INSERT INTO reconciliation_match_postings (match_id, posting_id, ledger_id) SELECT $1, unnest($2::bigint[]), $3`,
      [row.id, match.postingIds, scope.ledgerId],
    );
    await manager.query(`UPDATE postings SET reconciled_at = clock_timestamp() WHERE ledger_id = $1 AND id = ANY($2::bigint[])`, [
      scope.ledgerId,
      match.postingIds,
    ]);
    return row;
  }

  /** Reverses the live match and releases its postings; null when it was not live. */
  async reverse(manager: EntityManager, scope: LedgerScope, matchId: string, reason: string | null): Promise<ReconciliationMatchRecord | null> {
    const [rows] = await manager.query(
      `UPDATE reconciliation_matches m SET reversed_at = clock_timestamp(), reversed_reason = $3
       WHERE m.ledger_id = $1 AND m.id = $2 AND m.reversed_at IS NULL RETURNING ${MATCH_COLUMNS}`,
      [scope.ledgerId, matchId, reason],
    );
    const match: ReconciliationMatchRecord | undefined = rows[0];
    if (!match) return null;
    await manager.query(
      `UPDATE reconciliation_match_postings SET released_at = clock_timestamp() WHERE ledger_id = $1 AND match_id = $2 AND released_at IS NULL`,
      [scope.ledgerId, matchId],
    );
    await manager.query(`UPDATE postings SET reconciled_at = NULL WHERE ledger_id = $1 AND id = ANY($2::bigint[])`, [
      scope.ledgerId,
      match.postingIds,
    ]);
    return match;
  }

  /** Every match a row has had, oldest first, reversed ones included. */
  listForRow(scope: LedgerScope, externalTransactionId: string): Promise<ReconciliationMatchRecord[]> {
    return this.dataSource.query(
      `SELECT ${MATCH_COLUMNS} FROM reconciliation_matches m WHERE m.ledger_id = $1 AND m.external_transaction_id = $2
       ORDER BY m.created_at, m.id`,
      [scope.ledgerId, externalTransactionId],
    );
  }

  /**
   * Marks a posting reconciled outside any match (a hand check): reconciled_at keeps its first
   * value, the reference is replaced when one is given. Null when the posting is not this ledger's.
   */
  async markPostingReconciled(scope: LedgerScope, postingId: string, reference: string | null): Promise<PostingEntity | null> {
    const [rows] = await this.dataSource.query(
      `UPDATE postings p SET reconciled_at = COALESCE(p.reconciled_at, clock_timestamp()),
         reconciliation_reference = COALESCE($3, p.reconciliation_reference)
       WHERE p.ledger_id = $1 AND p.id = $2 RETURNING ${POSTING_COLUMNS}`,
      [scope.ledgerId, postingId, reference],
    );
    return rows[0] ?? null;
  }

  async runExists(scope: LedgerScope, runId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM reconciliation_runs WHERE ledger_id = $1 AND id = $2`, [scope.ledgerId, runId]);
    return rows.length > 0;
  }
}
