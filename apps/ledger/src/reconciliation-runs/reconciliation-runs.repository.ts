import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation } from '@bursar/service-kit';
import { LedgerScope } from '../common/mode';
import { MATCHED_ENTRY, MATCHED_ENTRY_ORDER } from '../external-transactions/reconciliation-match.record';
import type { NewRun, RunRecord } from './reconciliation-run.record';

const ONE_ACTIVE_RUN_INDEX = 'reconciliation_runs_one_active_idx';

const RUN_COLUMNS = `r.id, r.ledger_id AS "ledgerId", r.source_id AS "sourceId", s.name AS "sourceName",
  s.default_account_id AS "sourceDefaultAccountId", r.status,
  r.external_reference AS "externalReference", r.note, r.strategy, r.window_seconds AS "windowSeconds",
  r.auto_resolve_below_minor_units::text AS "autoResolveBelow", r.range_from AS "rangeFrom", r.range_to AS "rangeTo",
  r.matched_count AS "matchedCount", r.unmatched_count AS "unmatchedCount", r.pass_counts AS "passCounts",
  r.error_message AS "errorMessage", r.attempts, r.external_transaction_ids::text[] AS "externalTransactionIds",
  r.started_at AS "startedAt", r.heartbeat_at AS "heartbeatAt", r.completed_at AS "completedAt",
  r.created_at AS "createdAt", r.updated_at AS "updatedAt"`;
// As text: a large run's arrays are passed on to the client without being parsed.
const RESULT_COLUMNS = `r.matched::text AS "matchedJson", r.unmatched_external::text AS "unmatchedExternalJson",
  r.unmatched_internal::text AS "unmatchedInternalJson"`;
const FROM_RUNS = `FROM reconciliation_runs r JOIN reconciliation_sources s ON s.id = r.source_id`;

/** A run's `matched[]` built whole from its live matches ($1 the ledger, $2 the run). */
export const MATCHED_OF_RUN = `SELECT coalesce(json_agg(${MATCHED_ENTRY} ORDER BY ${MATCHED_ENTRY_ORDER}), '[]'::json)
  FROM reconciliation_matches m JOIN external_transactions x ON x.id = m.external_transaction_id
  JOIN reconciliation_match_postings mp ON mp.match_id = m.id JOIN postings p ON p.id = mp.posting_id
  WHERE m.ledger_id = $1 AND m.reconciliation_run_id = $2 AND m.reversed_at IS NULL`;

/** Which runs the sweep hands back to the queue: with the tenant each belongs to. */
export interface RunToResume {
  runId: string;
  organizationId: string;
  ledgerId: string;
  mode: string;
}

/**
 * A run's lifecycle: created, claimed, kept alive, resumed, completed or failed. What a run reads
 * to match is ReconciliationCandidatesRepository's; the matches it writes, ReconciliationMatchesRepository's.
 */
@Injectable()
export class ReconciliationRunsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private db(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  /** Inserts a run; null when the source already has a queued or running one (the partial unique index decides, also under races). */
  async insert(manager: EntityManager, scope: LedgerScope, run: NewRun): Promise<string | null> {
    try {
      const [row] = await manager.query(
        `INSERT INTO reconciliation_runs (ledger_id, source_id, status, external_reference, note, strategy, window_seconds,
           auto_resolve_below_minor_units, range_from, range_to, external_transaction_ids, started_at, heartbeat_at, attempts)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::uuid[],
           CASE WHEN $3 = 'running' THEN clock_timestamp() END, CASE WHEN $3 = 'running' THEN clock_timestamp() END,
           CASE WHEN $3 = 'running' THEN 1 ELSE 0 END)
         RETURNING id`,
        [
          scope.ledgerId,
          run.sourceId,
          run.status,
          run.externalReference,
          run.note,
          run.strategy,
          run.windowSeconds,
          run.autoResolveBelow,
          run.rangeFrom,
          run.rangeTo,
          run.externalTransactionIds,
        ],
      );
      return row.id;
    } catch (err) {
      if (isUniqueViolation(err, ONE_ACTIVE_RUN_INDEX)) return null;
      throw err;
    }
  }

  async find(scope: LedgerScope, id: string, withResults: boolean, manager?: EntityManager): Promise<RunRecord | null> {
    const rows: RunRecord[] = await this.db(manager).query(
      `SELECT ${RUN_COLUMNS}${withResults ? `, ${RESULT_COLUMNS}` : ''} ${FROM_RUNS} WHERE r.ledger_id = $1 AND r.id = $2`,
      [scope.ledgerId, id],
    );
    return rows[0] ?? null;
  }

  /** Newest first, without the result arrays. */
  list(scope: LedgerScope, limit: number): Promise<RunRecord[]> {
    return this.dataSource.query(
      `SELECT ${RUN_COLUMNS} ${FROM_RUNS} WHERE r.ledger_id = $1 ORDER BY r.created_at DESC, r.id DESC LIMIT $2`,
      [scope.ledgerId, limit],
    );
  }

  /**
   * Takes a run to execute: a queued one, or a running one whose heartbeat is older than
   * `staleMs` (its process died). Null when another process has it or it has finished.
   */
  async claim(scope: LedgerScope, id: string, staleMs: number): Promise<RunRecord | null> {
    const [rows]: [{ id: string }[], number] = await this.dataSource.query(
      `UPDATE reconciliation_runs SET status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, clock_timestamp()),
         heartbeat_at = clock_timestamp(), updated_at = clock_timestamp()
       WHERE ledger_id = $1 AND id = $2
         AND (status = 'queued' OR (status = 'running' AND heartbeat_at < clock_timestamp() - $3 * interval '1 millisecond'))
       RETURNING id`,
      [scope.ledgerId, id, staleMs],
    );
    return rows.length ? this.find(scope, id, false) : null;
  }

  async heartbeat(scope: LedgerScope, id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE reconciliation_runs SET heartbeat_at = clock_timestamp() WHERE ledger_id = $1 AND id = $2 AND status = 'running'`,
      [scope.ledgerId, id],
    );
  }

  /**
   * Queued runs, and running ones whose heartbeat stopped, of every tenant: the sweep is the
   * service's own housekeeping, so it spans ledgers on purpose and hands back each run's tenant.
   */
  resumable(staleMs: number, limit: number): Promise<RunToResume[]> {
    return this.dataSource.query(
      `SELECT r.id AS "runId", l.organization_id AS "organizationId", l.id AS "ledgerId", l.mode
       FROM reconciliation_runs r JOIN ledgers l ON l.id = r.ledger_id
       WHERE r.status = 'queued' OR (r.status = 'running' AND r.heartbeat_at < clock_timestamp() - $1 * interval '1 millisecond')
       ORDER BY r.created_at LIMIT $2`,
      [staleMs, limit],
    );
  }

  /** Locks the run for finishing; null when it is no longer running (another process finished it). */
  async lockRunning(manager: EntityManager, scope: LedgerScope, id: string): Promise<boolean> {
    const rows = await manager.query(
      `SELECT id FROM reconciliation_runs WHERE ledger_id = $1 AND id = $2 AND status = 'running' FOR UPDATE`,
      [scope.ledgerId, id],
    );
    return rows.length > 0;
  }

  /**
   * Completes the run. Its matches (those of earlier attempts of a run picked up again included),
   * counts per pass and `matched` array are read back from the database in SQL, so a large run's
   * result never travels through the service's memory. `matched` is its batches' slices joined
   * in order when they hold exactly its live matches and follow one another (each batch wrote the
   * next stretch of the order); else (a run picked up again, a match reversed meanwhile) it is built
   * whole. The slices go with it.
   */
  async complete(manager: EntityManager, scope: LedgerScope, id: string, unmatched: { count: number; externalJson: string; internalJson: string }): Promise<void> {
    await manager.query(
      `WITH counts AS (
         SELECT count(*)::int AS n, jsonb_build_object('external_ref', count(*) FILTER (WHERE strategy = 'external_ref'),
           'exact', count(*) FILTER (WHERE strategy = 'exact'), 'sum_in_window', count(*) FILTER (WHERE strategy = 'sum_in_window')) AS passes
         FROM reconciliation_matches m WHERE m.ledger_id = $1 AND m.reconciliation_run_id = $2 AND m.reversed_at IS NULL),
       slices AS (
         SELECT s.match_count, s.entries, s.first_at, s.first_id, lag(s.last_at) OVER w AS prev_at, lag(s.last_id) OVER w AS prev_id
         FROM reconciliation_run_slices s WHERE s.ledger_id = $1 AND s.run_id = $2 WINDOW w AS (ORDER BY s.first_at, s.first_id)),
       spliced AS (
         SELECT ('[' || string_agg(s.entries, ',' ORDER BY s.first_at, s.first_id) || ']')::json AS matched FROM slices s
         HAVING sum(s.match_count) = (SELECT n FROM counts) AND bool_and(s.prev_at IS NULL OR (s.first_at, s.first_id) > (s.prev_at, s.prev_id))),
       dropped AS (DELETE FROM reconciliation_run_slices WHERE ledger_id = $1 AND run_id = $2)
       UPDATE reconciliation_runs r SET status = 'completed', matched = coalesce((SELECT matched FROM spliced), (${MATCHED_OF_RUN})),
         matched_count = c.n, pass_counts = c.passes, unmatched_count = $3, unmatched_external = $4::json, unmatched_internal = $5::json,
         error_message = NULL, completed_at = clock_timestamp(), heartbeat_at = NULL, updated_at = clock_timestamp()
       FROM counts c WHERE r.ledger_id = $1 AND r.id = $2`,
      [scope.ledgerId, id, unmatched.count, unmatched.externalJson, unmatched.internalJson],
    );
  }

  /** Fails the run with `message`; its batches' slices of `matched` go. */
  async fail(manager: EntityManager, scope: LedgerScope, id: string, message: string): Promise<void> {
    await manager.query(
      `UPDATE reconciliation_runs SET status = 'failed', error_message = $3, completed_at = clock_timestamp(), heartbeat_at = NULL,
         updated_at = clock_timestamp()
       WHERE ledger_id = $1 AND id = $2`,
      [scope.ledgerId, id, message],
    );
    await manager.query(`DELETE FROM reconciliation_run_slices WHERE ledger_id = $1 AND run_id = $2`, [scope.ledgerId, id]);
  }
}