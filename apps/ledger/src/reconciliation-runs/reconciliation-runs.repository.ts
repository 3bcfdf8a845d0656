import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation, traceContextParam } from '@bursar/service-kit';
import { LedgerScope } from '../common/mode';
import type { FoundMatch, MatchPosting, MatchRow, RefCandidate } from './reconciliation-matcher';
import type { NewRun, RunRecord } from './reconciliation-run.record';

/** Joins a reference triple into one key (unit separator, chr(31): Postgres text cannot hold NUL). */
const REF_SEPARATOR = '\u001f';
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

/** Which runs the sweep hands back to the queue: with the tenant each belongs to. */
export interface RunToResume {
  runId: string;
  organizationId: string;
  ledgerId: string;
  mode: string;
}

/** A posting that stays unmatched, for `unmatched_internal`. */
export interface UnmatchedPosting {
  posting_id: number;
  transaction_id: string;
  account: string;
  amount: string;
  currency: string;
  value_date: string;
}

/** A match as written, with its id. */
export interface WrittenMatch {
  match: FoundMatch;
  id: string;
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

/** Postings a run may match: posted (not pending, not voided) and not yet reconciled. */
const CANDIDATE = `p.reconciled_at IS NULL AND NOT p.pending AND p.voided_at IS NULL`;
const SIGNED = `CASE p.direction WHEN 'debit' THEN p.amount ELSE -p.amount END`;

function toPosting(r: Omit<RefRow, 'row_id'>): MatchPosting {
  return { id: r.id, accountId: r.account_id, amount: BigInt(r.amount), currency: r.currency, valueDate: Number(r.value_ms), taken: false };
}

/**
 * A batch of matches as the set-based writes read it: `m(id, row_id, strategy, posting_ids,
 * amount, currency, residual, n)` from seven array parameters starting at `$first` (matchArrays).
 */
const MATCH_SET = (first: number) =>
  `SELECT * FROM unnest(${['uuid', 'uuid', 'text', 'text', 'text', 'text', 'text'].map((t, k) => `$${first + k}::${t}[]`).join(', ')})
     WITH ORDINALITY AS m(id, row_id, strategy, posting_ids, amount, currency, residual, n)`;

function matchArrays(items: WrittenMatch[]): unknown[] {
  return [
    items.map((w) => w.id),
    items.map((w) => w.match.row.id),
    items.map((w) => w.match.pass),
    items.map((w) => w.match.postings.map((p) => p.id).join(',')),
    items.map((w) => w.match.row.amount.toString()),
    items.map((w) => w.match.row.currency),
    items.map((w) => w.match.residual.toString()),
  ];
}

/**
 * Inserts `reconciliation.match_created` for every match of `m`, and `reconciliation.break_auto_resolved`
 * for those inside the tolerance, in batch order (the columns EventsService.record writes). Its six
 * parameters from `$first`: organization, ledger, mode, run id, created_at text, tolerance; `$trace`:
 * traceContextParam().
 */
const MATCH_EVENTS = ({ first, trace }: { first: number; trace: number }) => {
  const [org, ledger, mode, runId, at, tolerance] = [0, 1, 2, 3, 4, 5].map((k) => `$${first + k}`);
  return `INSERT INTO events (organization_id, ledger_id, mode, type, resource_id, data, trace_context)
    SELECT ${org}::uuid, ${ledger}::uuid, ${mode}::text, t.type, m.id::text,
      jsonb_build_object('object', 'reconciliation_match', 'id', m.id, 'match_id', m.id, 'external_transaction_id', m.row_id,
        'reconciliation_run_id', ${runId}::uuid, 'strategy', m.strategy, 'posting_ids', to_jsonb(string_to_array(m.posting_ids, ',')::bigint[]),
        'amount', m.amount::numeric::text, 'currency', m.currency, 'residual', m.residual::numeric::text,
        'auto_resolved', m.residual::numeric <> 0, 'created_at', ${at}::text)
      || CASE WHEN t.type = 'reconciliation.break_auto_resolved' THEN jsonb_build_object('tolerance', ${tolerance}::text) ELSE '{}' END,
      $${trace}::jsonb
    FROM m CROSS JOIN LATERAL (VALUES (1, 'reconciliation.match_created'), (2, 'reconciliation.break_auto_resolved')) AS t(k, type)
    WHERE t.k = 1 OR m.residual::numeric <> 0
    ORDER BY m.n, t.k`;
};

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

  /** The run's open rows: the inline run's own rows, or the source's in the run's range. */
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
         coalesce(x.account_id, s.default_account_id) AS scope_account,
         (extract(epoch FROM x.occurred_at) * 1000)::float8 AS at_ms,
         CASE WHEN x.reference_rail IS NOT NULL THEN x.reference_rail || chr(31) || x.reference_kind || chr(31) || x.reference_value END AS ref
       FROM external_transactions x JOIN reconciliation_sources s ON s.id = x.source_id
       WHERE x.ledger_id = $1 AND x.source_id = $2 AND x.status = 'open'
         AND ($3::uuid[] IS NULL OR x.id = ANY ($3::uuid[]))
         AND ($4::timestamptz IS NULL OR x.occurred_at >= $4) AND ($5::timestamptz IS NULL OR x.occurred_at < $5)`,
      [scope.ledgerId, run.sourceId, run.externalTransactionIds, run.rangeFrom, run.rangeTo],
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
      `SELECT p.id::text AS id, p.account_id, (${SIGNED})::text AS amount, p.currency,
         (extract(epoch FROM p.value_date) * 1000)::float8 AS value_ms
       FROM postings p
       WHERE p.ledger_id = $1 AND p.currency = ANY ($2::text[]) AND ${CANDIDATE}
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
      `SELECT x.row_id::text AS row_id, p.id::text AS id, p.account_id, (${SIGNED})::text AS amount, p.currency,
         (extract(epoch FROM p.value_date) * 1000)::float8 AS value_ms
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS x(row_id, rail, kind, value)
       JOIN transaction_external_refs e ON e.ledger_id = $1 AND e.rail = x.rail AND e.ref_kind = x.kind AND e.value = x.value
       JOIN postings p ON p.transaction_id = e.transaction_id AND p.ledger_id = $1 AND ${CANDIDATE}`,
      [scope.ledgerId, withRef.map((r) => r.id), ...[0, 1, 2].map((k) => withRef.map((r) => (r.ref as string).split(REF_SEPARATOR)[k]))],
    );
    return found.map((r) => ({ rowId: r.row_id, posting: toPosting(r) }));
  }

  /**
   * Writes one batch of matches inside the caller's transaction. The common case is one statement
   * (see writeAllAtOnce); when it finds a row or a posting taken meanwhile, or a unique live index
   * refuses it, it is rolled back to a savepoint and the batch goes through writeCarefully, which
   * drops or skips exactly the matches that lost out. Returns the matches written.
   */
  async writeMatches(manager: EntityManager, scope: LedgerScope, run: RunRecord, matches: FoundMatch[], now: Date): Promise<WrittenMatch[]> {
    if (matches.length === 0) return [];
    const batch = matches.map((match) => ({ match, id: randomUUID() }));
    await manager.query('SAVEPOINT reconciliation_batch');
    try {
      if (await this.writeAllAtOnce(manager, scope, run, batch, now)) {
        await manager.query('RELEASE SAVEPOINT reconciliation_batch');
        return batch;
      }
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    await manager.query('ROLLBACK TO SAVEPOINT reconciliation_batch');
    return this.writeCarefully(manager, scope, run, matches, now);
  }

  /**
   * The whole batch in one statement: claims the postings (still unreconciled), marks the rows
   * (still open), inserts the matches, their postings and their events. Every sub-statement sees
   * the same snapshot and the row locks are taken by the updates themselves, so the batch is good
   * only when every posting and every row was taken: false otherwise, and the caller rolls it back.
   */
  private async writeAllAtOnce(manager: EntityManager, scope: LedgerScope, run: RunRecord, batch: WrittenMatch[], now: Date): Promise<boolean> {
    const postingIds = batch.flatMap((w) => w.match.postings.map((p) => p.id));
    const [done]: { claimed: number; marked: number }[] = await manager.query(
      `WITH m AS (${MATCH_SET(1)}),
       claimed AS (
         UPDATE postings p SET reconciled_at = $14, reconciliation_reference = coalesce($15, p.reconciliation_reference)
         WHERE p.ledger_id = $9 AND p.id = ANY ($16::bigint[]) AND ${CANDIDATE}
         RETURNING p.id),
       marked AS (
         UPDATE external_transactions x SET status = 'matched', matched_at = $14, reconciliation_run_id = $11, reconciliation_match_id = m.id,
           updated_at = $14
         FROM m WHERE x.ledger_id = $9 AND x.id = ANY ($2::uuid[]) AND x.id = m.row_id AND x.status = 'open'
         RETURNING x.id),
       inserted AS (
         INSERT INTO reconciliation_matches (id, ledger_id, external_transaction_id, reconciliation_run_id, strategy, posting_ids,
           amount, currency, residual, auto_resolved, created_at)
         SELECT m.id, $9, m.row_id, $11, m.strategy, string_to_array(m.posting_ids, ',')::bigint[], m.amount::numeric, m.currency,
           m.residual::numeric, m.residual::numeric <> 0, $14
         FROM m),
       linked AS (
         INSERT INTO reconciliation_match_postings (match_id, posting_id, ledger_id)
         SELECT m.id, unnest(string_to_array(m.posting_ids, ',')::bigint[]), $9 FROM m),
       announced AS (${MATCH_EVENTS({ first: 8, trace: 17 })})
       SELECT (SELECT count(*) FROM claimed)::int AS claimed, (SELECT count(*) FROM marked)::int AS marked`,
      [
        ...matchArrays(batch),
        scope.organizationId,
        scope.ledgerId,
        scope.mode,
        run.id,
        now.toISOString(),
        run.autoResolveBelow,
        now,
        run.externalReference,
        postingIds,
        traceContextParam(),
      ],
    );
    return done.claimed === postingIds.length && done.marked === batch.length;
  }

  /**
   * Writes one batch a step at a time: locks the rows still open (and without a live match) and
   * claims the postings still unreconciled (and in no live match), drops any match whose row or
   * postings were taken meanwhile (a manual match, another source's run), then inserts the
   * matches, their postings and their events and marks the rows matched. Should a unique live
   * index refuse an insert anyway, the batch is written again one match at a time and the refused
   * matches are skipped, never an error.
   */
  private async writeCarefully(
    manager: EntityManager,
    scope: LedgerScope,
    run: RunRecord,
    matches: FoundMatch[],
    now: Date,
  ): Promise<WrittenMatch[]> {
    if (matches.length === 0) return [];
    const lockedRows: { id: string }[] = await manager.query(
      `SELECT x.id FROM external_transactions x
       WHERE x.ledger_id = $1 AND x.id = ANY ($2::uuid[]) AND x.status = 'open'
         AND NOT EXISTS (SELECT 1 FROM reconciliation_matches m WHERE m.external_transaction_id = x.id AND m.reversed_at IS NULL)
       ORDER BY x.id FOR UPDATE OF x`,
      [scope.ledgerId, matches.map((m) => m.row.id)],
    );
    const openRows = new Set(lockedRows.map((r) => r.id));
    const wanted = matches.filter((m) => openRows.has(m.row.id));
    // The update takes the posting locks itself (in id order, through the primary key), checking each posting under its lock.
    const [claimed]: [{ id: string }[], number] = await manager.query(
      `UPDATE postings p SET reconciled_at = $3, reconciliation_reference = coalesce($4, p.reconciliation_reference)
       WHERE p.ledger_id = $1 AND p.id = ANY ($2::bigint[]) AND ${CANDIDATE}
         AND NOT EXISTS (SELECT 1 FROM reconciliation_match_postings mp WHERE mp.posting_id = p.id AND mp.released_at IS NULL)
       RETURNING p.id::text AS id`,
      [scope.ledgerId, wanted.flatMap((m) => m.postings.map((p) => p.id)), now, run.externalReference],
    );
    const claimedPostings = new Set(claimed.map((p) => p.id));
    const kept = wanted.filter((m) => m.postings.every((p) => claimedPostings.has(p.id)));
    const used = new Set(kept.flatMap((m) => m.postings.map((p) => p.id)));
    // Postings claimed for a match that lost its other postings go back to unreconciled.
    const release = claimed.map((p) => p.id).filter((id) => !used.has(id));
    if (release.length > 0) {
      await manager.query(`UPDATE postings SET reconciled_at = NULL WHERE ledger_id = $1 AND id = ANY ($2::bigint[])`, [scope.ledgerId, release]);
    }
    if (kept.length === 0) return [];
    const written = await this.insertMatches(manager, scope, run, kept, now);
    await manager.query(
      `UPDATE external_transactions x SET status = 'matched', matched_at = $2, reconciliation_run_id = $3, reconciliation_match_id = m.id,
         updated_at = $2
       FROM unnest($4::uuid[], $5::uuid[]) AS m(row_id, id) WHERE x.ledger_id = $1 AND x.id = m.row_id`,
      [scope.ledgerId, now, run.id, written.map((w) => w.match.row.id), written.map((w) => w.id)],
    );
    await this.recordMatchEvents(manager, scope, run, written, now);
    return written;
  }

  /** All at once; when a unique live index refuses the batch, one match at a time, skipping the refused. */
  private async insertMatches(
    manager: EntityManager,
    scope: LedgerScope,
    run: RunRecord,
    matches: FoundMatch[],
    now: Date,
  ): Promise<WrittenMatch[]> {
    const batch = matches.map((match) => ({ match, id: randomUUID() }));
    const attempt = async (items: typeof batch) => {
      await manager.query('SAVEPOINT reconciliation_matches');
      try {
        await this.insertMatchRows(manager, scope, run, items, now);
        await manager.query('RELEASE SAVEPOINT reconciliation_matches');
        return true;
      } catch (err) {
        await manager.query('ROLLBACK TO SAVEPOINT reconciliation_matches');
        if (!isUniqueViolation(err)) throw err;
        return false;
      }
    };
    if (await attempt(batch)) return batch;
    const written: typeof batch = [];
    for (const item of batch) if (await attempt([item])) written.push(item);
    const used = new Set(written.flatMap((w) => w.match.postings.map((p) => p.id)));
    const release = batch.flatMap((w) => w.match.postings.map((p) => p.id)).filter((id) => !used.has(id));
    if (release.length > 0) {
      await manager.query(`UPDATE postings SET reconciled_at = NULL WHERE ledger_id = $1 AND id = ANY ($2::bigint[])`, [scope.ledgerId, release]);
    }
    return written;
  }

  private async insertMatchRows(
    manager: EntityManager,
    scope: LedgerScope,
    run: RunRecord,
    items: WrittenMatch[],
    now: Date,
  ): Promise<void> {
    await manager.query(
      `WITH m AS (${MATCH_SET(4)}),
       inserted AS (
         INSERT INTO reconciliation_matches (id, ledger_id, external_transaction_id, reconciliation_run_id, strategy, posting_ids,
           amount, currency, residual, auto_resolved, created_at)
         SELECT m.id, $1, m.row_id, $2, m.strategy, string_to_array(m.posting_ids, ',')::bigint[], m.amount::numeric, m.currency,
           m.residual::numeric, m.residual::numeric <> 0, $3
         FROM m)
       INSERT INTO reconciliation_match_postings (match_id, posting_id, ledger_id)
       SELECT m.id, unnest(string_to_array(m.posting_ids, ',')::bigint[]), $1 FROM m`,
      [scope.ledgerId, run.id, now, ...matchArrays(items)],
    );
  }

  /**
   * `reconciliation.match_created` for every match, and `reconciliation.break_auto_resolved` for
   * those inside the tolerance, as one statement (the columns EventsService.record writes).
   */
  private async recordMatchEvents(manager: EntityManager, scope: LedgerScope, run: RunRecord, written: WrittenMatch[], now: Date): Promise<void> {
    await manager.query(`WITH m AS (${MATCH_SET(1)}) ${MATCH_EVENTS({ first: 8, trace: 14 })}`, [
      ...matchArrays(written),
      scope.organizationId,
      scope.ledgerId,
      scope.mode,
      run.id,
      now.toISOString(),
      run.autoResolveBelow,
      traceContextParam(),
    ]);
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
      `SELECT p.id::float8 AS posting_id, p.transaction_id AS transaction_id, p.account_id AS account, (${SIGNED})::text AS amount,
         p.currency, to_char(p.value_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS value_date
       FROM postings p
       WHERE p.ledger_id = $1 AND ${CANDIDATE} AND ($2::timestamptz IS NULL OR p.value_date >= $2)
         AND ($3::timestamptz IS NULL OR p.value_date < $3) AND ($4::text[] IS NULL OR p.account_id = ANY ($4::text[]))
       ORDER BY p.value_date, p.id`,
      [scope.ledgerId, from, to, accounts],
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
   * result never travels through the service's memory.
   */
  async complete(manager: EntityManager, scope: LedgerScope, id: string, unmatched: { count: number; externalJson: string; internalJson: string }): Promise<void> {
    const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    await manager.query(
      `WITH live AS (
         SELECT m.id, m.strategy, m.residual, m.external_transaction_id FROM reconciliation_matches m
         WHERE m.ledger_id = $1 AND m.reconciliation_run_id = $2 AND m.reversed_at IS NULL),
       entries AS (
         SELECT coalesce(json_agg(json_build_object('external_id', x.external_id, 'external_transaction_id', x.id,
             'posting_id', p.id, 'account', p.account_id, 'amount', (${SIGNED})::text, 'currency', p.currency,
             'posting_value_date', ${iso('p.value_date')}, 'external_at', ${iso('x.occurred_at')}, 'match_id', m.id,
             'strategy', m.strategy, 'residual', m.residual::text) ORDER BY x.occurred_at, x.id, p.id), '[]'::json) AS matched
         FROM live m JOIN external_transactions x ON x.id = m.external_transaction_id
         JOIN reconciliation_match_postings mp ON mp.match_id = m.id
         JOIN postings p ON p.id = mp.posting_id),
       counts AS (
         SELECT count(*)::int AS n, jsonb_build_object('external_ref', count(*) FILTER (WHERE strategy = 'external_ref'),
           'exact', count(*) FILTER (WHERE strategy = 'exact'), 'sum_in_window', count(*) FILTER (WHERE strategy = 'sum_in_window')) AS passes
         FROM live)
       UPDATE reconciliation_runs r SET status = 'completed', matched = e.matched, matched_count = c.n, pass_counts = c.passes,
         unmatched_count = $3, unmatched_external = $4::json, unmatched_internal = $5::json, error_message = NULL,
         completed_at = clock_timestamp(), heartbeat_at = NULL, updated_at = clock_timestamp()
       FROM entries e, counts c WHERE r.ledger_id = $1 AND r.id = $2`,
      [scope.ledgerId, id, unmatched.count, unmatched.externalJson, unmatched.internalJson],
    );
  }

  /** Fails the run with `message`. */
  async fail(manager: EntityManager, scope: LedgerScope, id: string, message: string): Promise<void> {
    await manager.query(
      `UPDATE reconciliation_runs SET status = 'failed', error_message = $3, completed_at = clock_timestamp(), heartbeat_at = NULL,
         updated_at = clock_timestamp()
       WHERE ledger_id = $1 AND id = $2`,
      [scope.ledgerId, id, message],
    );
  }

}
