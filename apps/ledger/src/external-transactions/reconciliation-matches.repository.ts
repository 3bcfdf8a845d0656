import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation, traceContextParam } from '@bursar/service-kit';
import { LedgerScope } from '../common/mode';
import { MATCHABLE_POSTING, POSTING_COLUMNS } from '../postings/posting.columns';
import { PostingEntity } from '../postings/posting.entity';
import { MATCH_COLUMNS, MATCHED_ENTRY, MATCHED_ENTRY_ORDER, ReconciliationMatchRecord } from './reconciliation-match.record';

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

/** A match to write: its row, the postings it takes, and what it records. */
export interface MatchToWrite {
  rowId: string;
  strategy: ReconciliationMatchRecord['strategy'];
  /** Canonical decimal ids (as `id::text` reads them). */
  postingIds: string[];
  amount: string;
  currency: string;
  /** Row amount minus the postings' signed sum; non-zero only when the run's tolerance allowed it. */
  residual: string;
  note: string | null;
}

/** A match as written, with its new id. */
export type WrittenMatch = MatchToWrite & { id: string };

/** What every match of one write shares. */
export interface MatchWriteContext {
  /** The run writing them; null for a manual match. */
  runId: string | null;
  /** Set on the claimed postings as their reconciliation_reference when given. */
  reference: string | null;
  /** The run's auto-resolve tolerance, named by `reconciliation.break_auto_resolved`. */
  tolerance: string;
  /** Written as the matches' created_at, the rows' matched_at and the postings' reconciled_at. */
  at: Date;
}

/** Indexes that keep a posting in at most one live match and a row in at most one. */
const LIVE_MATCH_INDEXES = new Set(['reconciliation_match_postings_live_idx', 'reconciliation_matches_one_live_per_row_idx']);

/** Undoes an attempt and drops its savepoint, so retries do not pile up subtransactions. */
const UNDO = 'ROLLBACK TO SAVEPOINT match_write; RELEASE SAVEPOINT match_write';

/**
 * The batch as `m(id, row_id, strategy, posting_ids, amount, currency, residual, note, n)` from eight
 * arrays ($1 to $8); $9 to $11 the scope, $12 the run, $13 the time (ISO text), $14 the tolerance,
 * $15 the reference, $16 every posting id, $17 the trace context. The updates take the row locks
 * themselves and recheck their conditions under them, and every part sees one snapshot, so the
 * statement reports what it could not take (`lost`) and the caller rolls it back unless that is
 * nothing. The events carry what EventsService.record would write, the match as presentMatch shows it.
 * A run's batch also writes its slice of the run's `matched[]` (its entries in order, and where in
 * the order it starts and ends), so finishing the run joins slices instead of building it whole.
 */
const WRITE_MATCHES = `
  WITH m AS (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
      WITH ORDINALITY AS m(id, row_id, strategy, posting_ids, amount, currency, residual, note, n)),
  claimed AS (
    UPDATE postings p SET reconciled_at = $13::text::timestamptz, reconciliation_reference = coalesce($15, p.reconciliation_reference)
    WHERE p.ledger_id = $10 AND p.id = ANY ($16::bigint[]) AND ${MATCHABLE_POSTING}
    RETURNING p.id, p.account_id, p.amount, p.direction, p.currency, p.value_date),
  marked AS (
    UPDATE external_transactions x SET status = 'matched', matched_at = $13::text::timestamptz, reconciliation_run_id = $12::uuid,
      reconciliation_match_id = m.id, updated_at = $13::text::timestamptz
    FROM m WHERE x.ledger_id = $10 AND x.id = ANY ($2::uuid[]) AND x.id = m.row_id AND x.status = 'open'
    RETURNING x.id, x.external_id, x.occurred_at),
  sliced AS (
    INSERT INTO reconciliation_run_slices (ledger_id, run_id, first_at, first_id, last_at, last_id, match_count, entries)
    SELECT $10, $12::uuid, f.occurred_at, f.id, l.occurred_at, l.id, f.n, e.entries
    FROM (SELECT x.occurred_at, x.id, count(*) OVER () AS n FROM marked x ORDER BY x.occurred_at, x.id LIMIT 1) f,
      (SELECT x.occurred_at, x.id FROM marked x ORDER BY x.occurred_at DESC, x.id DESC LIMIT 1) l,
      (SELECT string_agg(${MATCHED_ENTRY}::text, ',' ORDER BY ${MATCHED_ENTRY_ORDER}) AS entries
       FROM m JOIN marked x ON x.id = m.row_id CROSS JOIN LATERAL unnest(string_to_array(m.posting_ids, ',')::bigint[]) AS taken(id)
       JOIN claimed p ON p.id = taken.id) e
    WHERE $12::uuid IS NOT NULL),
  inserted AS (
    INSERT INTO reconciliation_matches (id, ledger_id, external_transaction_id, reconciliation_run_id, strategy, posting_ids,
      amount, currency, residual, auto_resolved, note, created_at)
    SELECT m.id, $10, m.row_id, $12::uuid, m.strategy, string_to_array(m.posting_ids, ',')::bigint[], m.amount::numeric, m.currency,
      m.residual::numeric, m.residual::numeric <> 0, m.note, $13::text::timestamptz
    FROM m),
  linked AS (
    INSERT INTO reconciliation_match_postings (match_id, posting_id, ledger_id)
    SELECT m.id, unnest(string_to_array(m.posting_ids, ',')::bigint[]), $10 FROM m),
  announced AS (
    INSERT INTO events (organization_id, ledger_id, mode, type, resource_id, data, trace_context)
    SELECT $9::uuid, $10::uuid, $11::text, t.type, m.id::text,
      jsonb_build_object('match_id', m.id, 'object', 'reconciliation_match', 'id', m.id, 'external_transaction_id', m.row_id,
        'reconciliation_run_id', $12::uuid, 'strategy', m.strategy, 'posting_ids', to_jsonb(string_to_array(m.posting_ids, ',')::bigint[]),
        'amount', m.amount::numeric::text, 'currency', m.currency, 'residual', m.residual::numeric::text,
        'auto_resolved', m.residual::numeric <> 0, 'note', m.note, 'created_at', $13::text, 'reversed_at', NULL, 'reversed_reason', NULL)
      || CASE WHEN t.type = 'reconciliation.break_auto_resolved' THEN jsonb_build_object('tolerance', $14::text) ELSE '{}' END,
      $17::jsonb
    FROM m CROSS JOIN LATERAL (VALUES (1, 'reconciliation.match_created'), (2, 'reconciliation.break_auto_resolved')) AS t(k, type)
    WHERE t.k = 1 OR m.residual::numeric <> 0
    ORDER BY m.n, t.k)
  SELECT ARRAY(SELECT unnest($2::uuid[]) EXCEPT SELECT id FROM marked)::text[] AS "rows",
    ARRAY(SELECT unnest($16::bigint[]) EXCEPT SELECT id FROM claimed)::text[] AS "postings"`;

/**
 * Matches and what they hold. Matches are written one way, `write`, by reconciliation runs and by
 * hand alike; it and `reverse` run on the caller's transaction (`manager`), so a match, its
 * postings, its row and its events change together.
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
   * Writes matches inside the caller's transaction, every one with what goes with it: its postings
   * claimed (still matchable: reconciled_at set, the reference kept unless one is given), its row
   * marked matched (still open), the match and its posting links inserted, and its
   * `reconciliation.match_created` event (with `reconciliation.break_auto_resolved` when a residual
   * was tolerated). One statement per attempt, under a savepoint: when a row or posting was taken
   * meanwhile (a manual match, another run), the attempt is rolled back and repeated without the
   * matches that lost it; when a live index refuses it, each match is tried alone and a refused one
   * skipped. Returns the matches written, each with its new id; never an error for one that lost out.
   */
  async write(manager: EntityManager, scope: LedgerScope, matches: MatchToWrite[], context: MatchWriteContext): Promise<WrittenMatch[]> {
    let batch = matches.map((m) => ({ ...m, id: randomUUID() }));
    while (batch.length > 0) {
      const outcome = await this.attempt(manager, scope, batch, context);
      if (outcome === 'written') return batch;
      if (outcome === 'refused') {
        if (batch.length === 1) return [];
        const written: WrittenMatch[] = [];
        for (const match of batch) written.push(...(await this.write(manager, scope, [match], context)));
        return written;
      }
      const { rows, postings } = outcome;
      batch = batch.filter((m) => !rows.has(m.rowId) && !m.postingIds.some((id) => postings.has(id)));
    }
    return [];
  }

  /** One run of WRITE_MATCHES under a savepoint, kept only when every row and posting was taken. */
  private async attempt(
    manager: EntityManager,
    scope: LedgerScope,
    batch: WrittenMatch[],
    context: MatchWriteContext,
  ): Promise<'written' | 'refused' | { rows: Set<string>; postings: Set<string> }> {
    await manager.query('SAVEPOINT match_write');
    let lost: { rows: string[]; postings: string[] };
    try {
      [lost] = await manager.query(WRITE_MATCHES, [
        batch.map((m) => m.id),
        batch.map((m) => m.rowId),
        batch.map((m) => m.strategy),
        batch.map((m) => m.postingIds.join(',')),
        batch.map((m) => m.amount),
        batch.map((m) => m.currency),
        batch.map((m) => m.residual),
        batch.map((m) => m.note),
        scope.organizationId,
        scope.ledgerId,
        scope.mode,
        context.runId,
        context.at.toISOString(),
        context.tolerance,
        context.reference,
        batch.flatMap((m) => m.postingIds),
        traceContextParam(),
      ]);
    } catch (err) {
      if (!isUniqueViolation(err, LIVE_MATCH_INDEXES)) throw err;
      await manager.query(UNDO);
      return 'refused';
    }
    if (lost.rows.length === 0 && lost.postings.length === 0) {
      await manager.query('RELEASE SAVEPOINT match_write');
      return 'written';
    }
    await manager.query(UNDO);
    return { rows: new Set(lost.rows), postings: new Set(lost.postings) };
  }

  /** A match as written, read back in the writing transaction. */
  async find(manager: EntityManager, scope: LedgerScope, id: string): Promise<ReconciliationMatchRecord | null> {
    const [row] = await manager.query(`SELECT ${MATCH_COLUMNS} FROM reconciliation_matches m WHERE m.ledger_id = $1 AND m.id = $2`, [
      scope.ledgerId,
      id,
    ]);
    return row ?? null;
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
