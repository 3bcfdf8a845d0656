import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { MATCHABLE_POSTING, SIGNED_POSTING_AMOUNT } from '../postings/posting.columns';
import type { MatchPosting, MatchRow, RefCandidate } from './reconciliation-matcher';
import type { RunRecord } from './reconciliation-run.record';

/** Joins a reference triple into one key (unit separator, chr(31): Postgres text cannot hold NUL). */
const REF_SEPARATOR = '\u001f';

/** A posting that stays unmatched, for `unmatched_internal`. */
export interface UnmatchedPosting {
  posting_id: number;
  transaction_id: string;
  account: string;
  amount: string;
  currency: string;
  value_date: string;
}

/** A loaded row with what the run reports about it besides what matching needs. */
export type LoadedRow = MatchRow & { accountId: string | null };

/** The reference pass's candidates arrive as rows of the row id and the posting's columns. */
interface RefRow {
  row_id: string;
  id: string;
  account_id: string;
  amount: string;
  currency: string;
  value_ms: number;
}

function toPosting(r: Omit<RefRow, 'row_id'>): MatchPosting {
  return { id: r.id, accountId: r.account_id, amount: BigInt(r.amount), currency: r.currency, valueDate: Number(r.value_ms), taken: false };
}

/**
 * What a run reads to match: the bank rows still open, and the postings they may take (posted,
 * unreconciled). Reads only; matches are written by ReconciliationMatchesRepository.
 */
@Injectable()
export class ReconciliationCandidatesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Open rows of the source (occurred_at in [from, to)), counting up to `cap`. */
  async countOpenRows(scope: LedgerScope, sourceId: string, from: Date | null, to: Date | null, cap: number): Promise<number> {
    const [row] = await this.dataSource.query(
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM external_transactions WHERE ledger_id = $1 AND source_id = $2 AND status = 'open'
           AND ($3::timestamptz IS NULL OR occurred_at >= $3) AND ($4::timestamptz IS NULL OR occurred_at < $4) LIMIT $5) open_rows`,
      [scope.ledgerId, sourceId, from, to, cap],
    );
    return row.n;
  }

  /** The run's open rows: the inline run's own rows, or the source's in the run's range; unassigned rows take the source's default account. */
  async openRows(scope: LedgerScope, run: RunRecord): Promise<LoadedRow[]> {
    const rows: {
      id: string;
      external_id: string;
      amount: string;
      currency: string;
      account_id: string | null;
      scope_account: string | null;
      at_ms: number;
      ref: string | null;
    }[] = await this.dataSource.query(
      `SELECT x.id, x.external_id, x.amount::text AS amount, x.currency, x.account_id,
         coalesce(x.account_id, $6) AS scope_account,
         (extract(epoch FROM x.occurred_at) * 1000)::float8 AS at_ms,
         CASE WHEN x.reference_rail IS NOT NULL THEN x.reference_rail || chr(31) || x.reference_kind || chr(31) || x.reference_value END AS ref
       FROM external_transactions x
       WHERE x.ledger_id = $1 AND x.source_id = $2 AND x.status = 'open'
         AND ($3::uuid[] IS NULL OR x.id = ANY ($3::uuid[]))
         AND ($4::timestamptz IS NULL OR x.occurred_at >= $4) AND ($5::timestamptz IS NULL OR x.occurred_at < $5)`,
      [scope.ledgerId, run.sourceId, run.externalTransactionIds, run.rangeFrom, run.rangeTo, run.sourceDefaultAccountId],
    );
    return rows.map((r) => ({
      id: r.id,
      externalId: r.external_id,
      amount: BigInt(r.amount),
      currency: r.currency,
      accountId: r.account_id,
      scopeAccount: r.scope_account,
      at: Number(r.at_ms),
      ref: r.ref,
    }));
  }

  /**
   * Candidate postings of the given currencies dated in [from, to] (the rows' times widened by the
   * window), limited to `accounts` when every row is tied to an account.
   */
  async candidatePostings(
    scope: LedgerScope,
    currencies: string[],
    accounts: string[] | null,
    from: Date,
    to: Date,
  ): Promise<MatchPosting[]> {
    const rows: Omit<RefRow, 'row_id'>[] = await this.dataSource.query(
      `SELECT p.id::text AS id, p.account_id, (${SIGNED_POSTING_AMOUNT})::text AS amount, p.currency,
         (extract(epoch FROM p.value_date) * 1000)::float8 AS value_ms
       FROM postings p
       WHERE p.ledger_id = $1 AND p.currency = ANY ($2::text[]) AND ${MATCHABLE_POSTING}
         AND p.value_date >= $3 AND p.value_date <= $4 AND ($5::text[] IS NULL OR p.account_id = ANY ($5::text[]))`,
      [scope.ledgerId, currencies, from, to, accounts],
    );
    return rows.map(toPosting);
  }

  /** Candidate postings of transactions that carry a row's reference triple, whatever their date. */
  async referenceCandidates(scope: LedgerScope, rows: MatchRow[]): Promise<RefCandidate[]> {
    const withRef = rows.filter((r) => r.ref !== null);
    if (withRef.length === 0) return [];
    const found: RefRow[] = await this.dataSource.query(
      `SELECT x.row_id::text AS row_id, p.id::text AS id, p.account_id, (${SIGNED_POSTING_AMOUNT})::text AS amount, p.currency,
         (extract(epoch FROM p.value_date) * 1000)::float8 AS value_ms
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS x(row_id, rail, kind, value)
       JOIN transaction_external_refs e ON e.ledger_id = $1 AND e.rail = x.rail AND e.ref_kind = x.kind AND e.value = x.value
       JOIN postings p ON p.transaction_id = e.transaction_id AND p.ledger_id = $1 AND ${MATCHABLE_POSTING}`,
      [scope.ledgerId, withRef.map((r) => r.id), ...[0, 1, 2].map((k) => withRef.map((r) => (r.ref as string).split(REF_SEPARATOR)[k]))],
    );
    return found.map((r) => ({ rowId: r.row_id, posting: toPosting(r) }));
  }

  /** Unreconciled posted postings dated in [from, to), in `accounts` when given, oldest first. */
  async unreconciledPostings(
    manager: EntityManager,
    scope: LedgerScope,
    from: Date | null,
    to: Date | null,
    accounts: string[] | null,
  ): Promise<UnmatchedPosting[]> {
    return manager.query(
      `SELECT p.id::float8 AS posting_id, p.transaction_id AS transaction_id, p.account_id AS account, (${SIGNED_POSTING_AMOUNT})::text AS amount,
         p.currency, to_char(p.value_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS value_date
       FROM postings p
       WHERE p.ledger_id = $1 AND ${MATCHABLE_POSTING} AND ($2::timestamptz IS NULL OR p.value_date >= $2)
         AND ($3::timestamptz IS NULL OR p.value_date < $3) AND ($4::text[] IS NULL OR p.account_id = ANY ($4::text[]))
       ORDER BY p.value_date, p.id`,
      [scope.ledgerId, from, to, accounts],
    );
  }
}
