import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { LOGGER, retryingTransaction } from '@bursar/service-kit';
import { LedgerSettings } from '../config/ledger.settings';
import { LedgerScope } from '../common/mode';
import { EventsService } from '../events/events.service';
import { MatchToWrite, ReconciliationMatchesRepository } from '../external-transactions/reconciliation-matches.repository';
import { LoadedRow, ReconciliationCandidatesRepository } from './reconciliation-candidates.repository';
import { FoundMatch, MatchPosting, ReconciliationMatcher, RefCandidate } from './reconciliation-matcher';
import { presentRun, presentUnmatchedRow } from './reconciliation-run.presenter';
import type { RunRecord } from './reconciliation-run.record';
import { ReconciliationRunsRepository } from './reconciliation-runs.repository';

/** A run that keeps failing (a crash every time, say) is given up after this many attempts. */
export const MAX_RUN_ATTEMPTS = 3;
/** Matches written per transaction, and transactions written at once. */
const WRITE_BATCH = 5000;
const WRITERS = 2;

function toWrite(found: FoundMatch): MatchToWrite {
  return {
    rowId: found.row.id,
    strategy: found.pass,
    postingIds: found.postings.map((p) => p.id),
    amount: found.row.amount.toString(),
    currency: found.row.currency,
    residual: found.residual.toString(),
    note: null,
  };
}

/**
 * Executes a claimed (running) run: reads its open rows and the candidate postings, matches them in
 * memory, and in one transaction writes the matches and finishes the run with its
 * `reconciliation.run_completed` event. A heartbeat keeps the run's `heartbeat_at` fresh meanwhile,
 * so the sweep can tell a live run from one whose process died.
 */
@Injectable()
export class ReconciliationRunExecutor {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly runs: ReconciliationRunsRepository,
    private readonly candidates: ReconciliationCandidatesRepository,
    private readonly matches: ReconciliationMatchesRepository,
    private readonly events: EventsService,
    private readonly settings: LedgerSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Runs `run` (already claimed) to completed or failed; never throws for a failure it could record. */
  async execute(scope: LedgerScope, run: RunRecord): Promise<void> {
    if (run.attempts > MAX_RUN_ATTEMPTS) {
      await this.fail(scope, run, `gave up after ${MAX_RUN_ATTEMPTS} attempts`);
      return;
    }
    const beat = setInterval(
      () => void this.runs.heartbeat(scope, run.id).catch(() => undefined),
      Math.max(50, Math.floor(this.settings.LEDGER_RECONCILIATION_STALE_AFTER_MS / 4)),
    );
    try {
      await this.complete(scope, run);
    } catch (err) {
      this.logger.error({ err, run_id: run.id }, 'reconciliation run failed');
      // The failure is recorded when the database allows; else the run stays running and the sweep retries it.
      await this.fail(scope, run, 'The run stopped on an unexpected error; start a new run');
    } finally {
      clearInterval(beat);
    }
  }

  private async complete(scope: LedgerScope, run: RunRecord): Promise<void> {
    const { rows, found } = await this.match(scope, run);
    const context = { runId: run.id, reference: run.externalReference, tolerance: run.autoResolveBelow, at: new Date() };
    // In the order of the run's matched[] (row time, then row id), so each batch writes the next stretch of it.
    found.sort((a, b) => a.row.at - b.row.at || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
    const batches: FoundMatch[][] = [];
    for (let i = 0; i < found.length; i += WRITE_BATCH) batches.push(found.slice(i, i + WRITE_BATCH));
    const matchedRows = new Set<string>();
    // Batches touch disjoint rows and postings, so writers never wait on each other; each commits its matches with their events.
    let next = 0;
    const writer = async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        const written = await retryingTransaction(this.dataSource, (m) => this.matches.write(m, scope, batch.map(toWrite), context));
        for (const w of written) matchedRows.add(w.rowId);
      }
    };
    await Promise.all(Array.from({ length: Math.min(WRITERS, batches.length) }, writer));
    await retryingTransaction(this.dataSource, (manager) => this.finishWith(manager, scope, run, rows, matchedRows));
  }

  /**
   * Reads the run's open rows and candidate postings and matches them. Its own method, so the
   * candidates no match took are garbage once it returns, before the writes begin.
   */
  private async match(scope: LedgerScope, run: RunRecord): Promise<{ rows: LoadedRow[]; found: FoundMatch[] }> {
    const rows = await this.candidates.openRows(scope, run);
    const windowMs = run.windowSeconds * 1000;
    const byId = new Map((await this.candidatePostings(scope, rows, windowMs)).map((p) => [p.id, p]));
    const refs: RefCandidate[] = (await this.candidates.referenceCandidates(scope, rows)).map(({ rowId, posting }) => {
      const known = byId.get(posting.id);
      if (known) return { rowId, posting: known };
      byId.set(posting.id, posting);
      return { rowId, posting };
    });
    const found = new ReconciliationMatcher(rows, [...byId.values()], {
      strategy: run.strategy,
      windowMs,
      tolerance: BigInt(run.autoResolveBelow),
    }).run(refs);
    return { rows, found };
  }

  /** Candidate postings for the rows: their currencies, the rows' times widened by the window, their accounts when all have one. */
  private async candidatePostings(scope: LedgerScope, rows: LoadedRow[], windowMs: number): Promise<MatchPosting[]> {
    if (rows.length === 0) return [];
    let min = Infinity;
    let max = -Infinity;
    for (const r of rows) {
      min = Math.min(min, r.at);
      max = Math.max(max, r.at);
    }
    const currencies = [...new Set(rows.map((r) => r.currency))];
    const accounts = rows.every((r) => r.scopeAccount !== null) ? [...new Set(rows.map((r) => r.scopeAccount as string))] : null;
    return this.candidates.candidatePostings(scope, currencies, accounts, new Date(min - windowMs), new Date(max + windowMs));
  }

  private async finishWith(manager: EntityManager, scope: LedgerScope, run: RunRecord, rows: LoadedRow[], matchedRows: Set<string>): Promise<void> {
    // Another process finished it (this one was presumed dead): nothing more to do.
    if (!(await this.runs.lockRunning(manager, scope, run.id))) return;
    const unmatched = rows.filter((r) => !matchedRows.has(r.id));
    const withInternal = run.rangeFrom !== null || run.rangeTo !== null;
    const internal = withInternal ? await this.candidates.unreconciledPostings(manager, scope, run.rangeFrom, run.rangeTo, this.internalAccounts(run, rows)) : [];
    await this.runs.complete(manager, scope, run.id, {
      count: unmatched.length,
      externalJson: JSON.stringify(unmatched.map(presentUnmatchedRow)),
      internalJson: JSON.stringify(internal),
    });
    await this.announce(manager, scope, run.id);
  }

  /**
   * Whose postings `unmatched_internal` lists: the source's default account, else the rows'
   * accounts when every row names one, else every account.
   */
  private internalAccounts(run: RunRecord, rows: LoadedRow[]): string[] | null {
    if (run.sourceDefaultAccountId) return [run.sourceDefaultAccountId];
    if (rows.length > 0 && rows.every((r) => r.accountId !== null)) return [...new Set(rows.map((r) => r.accountId as string))];
    return null;
  }

  /** The `reconciliation.run_completed` event of a run just finished, in the transaction that finished it. */
  private async announce(manager: EntityManager, scope: LedgerScope, id: string): Promise<void> {
    const finished = await this.runs.find(scope, id, false, manager);
    if (!finished) throw new Error(`reconciliation run ${id} vanished inside its own transaction`);
    await this.events.record(manager, scope, 'reconciliation.run_completed', id, presentRun(finished, false));
  }

  /** Marks a running run failed, with its event; leaves it to the sweep when the database is out. */
  async fail(scope: LedgerScope, run: RunRecord, message: string): Promise<void> {
    await this.dataSource
      .transaction(async (manager) => {
        if (!(await this.runs.lockRunning(manager, scope, run.id))) return;
        await this.runs.fail(manager, scope, run.id, message);
        await this.announce(manager, scope, run.id);
      })
      .catch((err: unknown) => this.logger.warn({ err, run_id: run.id }, 'could not record a failed reconciliation run'));
  }
}
