import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ListOrder, PageRequest, Pagination } from '../common/pagination';
import { EventsService } from '../events/events.service';
import { PostingEntity } from '../postings/posting.entity';
import { SourceRecord } from '../sources/source.record';
import { ExternalTransactionErrors } from './external-transaction-errors';
import { ExternalTransactionRecord, presentExternalTransaction, PresentedExternalTransaction } from './external-transaction.record';
import { ExternalTransactionFilter, ExternalTransactionsRepository, ingestRowJson } from './external-transactions.repository';
import { IngestItemError, IngestRow, isIngestError, parseIngestItem } from './ingest-item';
import { matchEventPayload, ReconciliationMatchRecord } from './reconciliation-match.record';
import { MatchCandidate, ReconciliationMatchesRepository } from './reconciliation-matches.repository';

/** Most items one ingest call (or one push) may carry. */
export const MAX_INGEST_ITEMS = 1000;

export interface IngestItemResult {
  /** As sent (null when the item had none usable). */
  externalId: string | null;
  status: 'created' | 'replayed' | 'error';
  record?: ExternalTransactionRecord;
  error?: IngestItemError;
}

export interface IngestOutcome {
  /** One per item, in input order. */
  results: IngestItemResult[];
  /** Rows the call created or found again, once each, in input order. */
  ids: string[];
  createdCount: number;
  replayedCount: number;
  errorCount: number;
}

/** An item checked for a bulk ingest: a compact row (`ingestRowJson`), or why it was refused. */
export type PreparedRow = { row: string } | { error: IngestItemError; externalId: string | null };

/** The external_id an item carried, for reporting it when the item is refused. */
function sentExternalId(item: unknown): string | null {
  const externalId = (item as { external_id?: unknown } | null)?.external_id;
  return typeof externalId === 'string' ? externalId : null;
}

const NEWEST_FIRST: ListOrder = {
  list: 'external_transactions',
  sortColumn: 'created_at',
  sortType: 'timestamptz',
  idColumn: 'id',
  idType: 'uuid',
  direction: 'DESC',
};

function notFound(id: string) {
  return LedgerErrors.error('not_found', { message: `No external transaction ${id}` });
}

function notInState(row: ExternalTransactionRecord, needed: 'open' | 'matched') {
  return ExternalTransactionErrors.error('invalid_state', { message: `External transaction ${row.id} is ${row.status}, not ${needed}` });
}

/** Signed amount of a posting as matching counts it: a debit adds, a credit subtracts. */
export function signedPostingAmount(p: { amount: string; direction: 'debit' | 'credit' }): bigint {
  return p.direction === 'debit' ? BigInt(p.amount) : -BigInt(p.amount);
}

/** Why the postings cannot match the row, or null when they can (manual match rules). */
function manualMatchProblem(row: ExternalTransactionRecord, ids: string[], postings: MatchCandidate[]): { message: string; hint?: string } | null {
  const found = new Set(postings.map((p) => p.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) return { message: `No posting ${missing.join(', ')} in this ledger` };
  for (const p of postings) {
    if (p.pending || p.voidedAt) return { message: `Posting ${p.id} is ${p.voidedAt ? 'voided' : 'pending'}; only posted postings can be matched` };
    if (p.reconciledAt) return { message: `Posting ${p.id} is already reconciled`, hint: 'Unmatch its current match first' };
    if (p.currency !== row.currency) return { message: `Posting ${p.id} is in ${p.currency}, the external transaction in ${row.currency}` };
  }
  const sum = postings.reduce((total, p) => total + signedPostingAmount(p), 0n);
  const residual = BigInt(row.amount) - sum;
  if (residual === 0n) return null;
  return {
    message: `The postings sum to ${sum}, the external transaction is ${row.amount}`,
    hint: `residual ${residual} (external amount minus the postings' signed sum, debit +amount, credit -amount); it must be 0`,
  };
}

@Injectable()
export class ExternalTransactionsService {
  constructor(
    private readonly rows: ExternalTransactionsRepository,
    private readonly matches: ReconciliationMatchesRepository,
    private readonly events: EventsService,
    private readonly pagination: Pagination,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * Lands the items of one call on `source`, keyed by (source, external_id): new ones are created,
   * known ones are reported `replayed` and left exactly as they were (also a repeat inside the
   * call), bad ones are reported per item while the rest land. One statement for all valid items;
   * pass `manager` to run it inside the caller's transaction. The caller bounds the item count.
   */
  async ingest(scope: LedgerScope, source: SourceRecord, items: unknown[], manager: EntityManager = this.dataSource.manager): Promise<IngestOutcome> {
    const parsed = items.map((item, index) => parseIngestItem(item, index));
    const valid = parsed.filter((p): p is IngestRow => !isIngestError(p));
    const byExternalId = new Map<string, { record: ExternalTransactionRecord; created: boolean }>();
    if (valid.length > 0) {
      for (const { created, ...record } of await this.rows.insertNew(manager, scope, source.id, valid)) {
        byExternalId.set(record.externalId, { record, created });
      }
      const missing = [...new Set(valid.map((r) => r.externalId).filter((id) => !byExternalId.has(id)))];
      if (missing.length > 0) {
        for (const record of await this.rows.findByExternalIds(manager, scope, source.id, missing)) {
          byExternalId.set(record.externalId, { record, created: false });
        }
      }
    }
    const outcome: IngestOutcome = { results: [], ids: [], createdCount: 0, replayedCount: 0, errorCount: 0 };
    const seen = new Set<string>();
    parsed.forEach((p, index) => {
      if (isIngestError(p)) {
        outcome.results.push({ externalId: sentExternalId(items[index]), status: 'error', error: p });
        outcome.errorCount++;
        return;
      }
      const found = byExternalId.get(p.externalId);
      // Rows are never deleted, so every valid item's row was either inserted or read back.
      if (!found) throw new Error(`ingest lost the row of ${p.externalId}`);
      const created = found.created && !seen.has(p.externalId);
      if (!seen.has(p.externalId)) outcome.ids.push(found.record.id);
      seen.add(p.externalId);
      outcome.results.push({ externalId: p.externalId, status: created ? 'created' : 'replayed', record: found.record });
      if (created) outcome.createdCount++;
      else outcome.replayedCount++;
    });
    return outcome;
  }

  /**
   * Checks one item as `ingest` does; a valid one comes back as a compact row for `ingestRows`, so
   * bulk callers (statement imports) hold their thousands of rows as one string each, not as objects.
   */
  prepareRow(item: unknown, index: number): PreparedRow {
    const parsed = parseIngestItem(item, index);
    return isIngestError(parsed) ? { error: parsed, externalId: sentExternalId(item) } : { row: ingestRowJson(parsed) };
  }

  /**
   * Lands prepared rows with the dedupe of `ingest` (a known or repeated external_id counts as
   * replayed) in one set-based insert, without reading any row back. The caller bounds the row
   * count and passes its transaction.
   */
  async ingestRows(scope: LedgerScope, source: SourceRecord, rows: string[], manager: EntityManager): Promise<{ createdCount: number; replayedCount: number }> {
    const createdCount = rows.length ? await this.rows.insertNewCounting(manager, scope, source.id, rows) : 0;
    return { createdCount, replayedCount: rows.length - createdCount };
  }

  /** 422 `invalid_request` (param `items`) unless there are 1 to MAX_INGEST_ITEMS items. */
  assertItemCount(items: unknown): asserts items is unknown[] {
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_INGEST_ITEMS) {
      throw LedgerErrors.error('invalid_request', {
        message: `items must be an array of 1 to ${MAX_INGEST_ITEMS} external transactions`,
        hint: `Split larger files into calls of at most ${MAX_INGEST_ITEMS} items; replays are harmless`,
        param: 'items',
      });
    }
  }

  async get(scope: LedgerScope, id: string): Promise<ExternalTransactionRecord> {
    const row = isUUID(id) ? await this.rows.find(scope, id) : null;
    if (!row) throw notFound(id);
    return row;
  }

  async list(scope: LedgerScope, filter: ExternalTransactionFilter, page: PageRequest): Promise<ListPage<PresentedExternalTransaction>> {
    if (filter.sourceId !== undefined && !isUUID(filter.sourceId)) return ListPage.empty(page);
    const after = page.cursor === undefined ? undefined : this.pagination.decode(NEWEST_FIRST, scope, page.cursor);
    const rows = await this.rows.list(scope, filter, after, page.limit + 1);
    const total = page.include_total === 'true' ? await this.rows.count(scope, filter) : undefined;
    return this.pagination.pageOf(rows, NEWEST_FIRST, scope, page, presentExternalTransaction, total);
  }

  /**
   * Ties an open row to postings by hand, in one transaction: the match (strategy manual), its
   * postings (reconciled_at set), the row (matched) and reconciliation.match_created, written the
   * way a run writes its matches. The postings must be this ledger's, posted, unreconciled, in the
   * row's currency, and sum (debit +, credit -) to the row's amount exactly: else 422 with the
   * residual in the hint. The row is locked first, then the postings in id order; a posting or row a
   * concurrent match took is 409 `invalid_state`.
   */
  async match(scope: LedgerScope, id: string, postingIds: string[], note: string | null): Promise<ReconciliationMatchRecord> {
    return this.withLockedRow(scope, id, async (manager, row) => {
      const ids = [...new Set(postingIds.map((p) => BigInt(p).toString()))];
      if (row.status !== 'open') throw notInState(row, 'open');
      const problem = manualMatchProblem(row, ids, await this.matches.lockPostings(manager, scope, ids));
      if (problem) throw LedgerErrors.error('invalid_request', { ...problem, param: 'posting_ids' });
      const [written] = await this.matches.write(
        manager,
        scope,
        [{ rowId: row.id, strategy: 'manual', postingIds: ids, amount: row.amount, currency: row.currency, residual: '0', note }],
        { runId: null, reference: null, tolerance: '0', at: new Date() },
      );
      // Only a live match the locks cannot see (the unique live indexes refused it) gets here.
      if (!written) {
        throw ExternalTransactionErrors.error('invalid_state', { message: 'A posting or the row was matched by a concurrent request', param: 'posting_ids' });
      }
      const match = await this.matches.find(manager, scope, written.id);
      if (!match) throw new Error(`reconciliation match ${written.id} vanished inside its own transaction`);
      return match;
    });
  }

  /** Reverses the row's live match: postings released, row open again, reconciliation.match_reversed. */
  async unmatch(scope: LedgerScope, id: string, reason: string | null): Promise<ExternalTransactionRecord> {
    return this.withLockedRow(scope, id, async (manager, row) => {
      const match =
        row.status === 'matched' && row.reconciliationMatchId ? await this.matches.reverse(manager, scope, row.reconciliationMatchId, reason) : null;
      if (!match) throw notInState(row, 'matched');
      const reopened = await this.rows.reopen(manager, scope, row.id);
      await this.events.record(manager, scope, 'reconciliation.match_reversed', match.id, matchEventPayload(match));
      return reopened;
    });
  }

  /** Sets an open row aside (external_transaction.ignored); ignoring an ignored row changes nothing; matched is 409. */
  async ignore(scope: LedgerScope, id: string, reason: string | null): Promise<ExternalTransactionRecord> {
    return this.withLockedRow(scope, id, async (manager, row) => {
      if (row.status === 'ignored') return row;
      if (row.status !== 'open') throw notInState(row, 'open');
      const ignored = await this.rows.markIgnored(manager, scope, row.id, reason);
      await this.events.record(manager, scope, 'external_transaction.ignored', row.id, { ...presentExternalTransaction(ignored), reason });
      return ignored;
    });
  }

  /** Runs `work` in a transaction holding the row's lock; an unknown id (or not a UUID) is 404. */
  private withLockedRow<T>(scope: LedgerScope, id: string, work: (manager: EntityManager, row: ExternalTransactionRecord) => Promise<T>): Promise<T> {
    if (!isUUID(id)) throw notFound(id);
    return this.dataSource.transaction(async (manager) => {
      const row = await this.rows.find(scope, id, manager, true);
      if (!row) throw notFound(id);
      return work(manager, row);
    });
  }

  async matchesOf(scope: LedgerScope, id: string): Promise<ReconciliationMatchRecord[]> {
    const row = await this.get(scope, id);
    return this.matches.listForRow(scope, row.id);
  }

  /**
   * Marks a posting reconciled by hand (POST /postings/{id}/reconciliations). The reference is the
   * caller's external reference, else the run it names; a run must be this ledger's (422).
   */
  async reconcilePosting(scope: LedgerScope, postingId: string, input: { externalReference?: string; runId?: string }): Promise<PostingEntity> {
    const missing = () => LedgerErrors.error('not_found', { message: `No posting ${postingId}` });
    if (!/^\d{1,19}$/.test(postingId) || BigInt(postingId) > 9223372036854775807n) throw missing();
    if (input.runId !== undefined && !(isUUID(input.runId) && (await this.matches.runExists(scope, input.runId)))) {
      throw LedgerErrors.error('invalid_request', { message: `No reconciliation run ${input.runId} in this ledger`, param: 'reconciliation_run_id' });
    }
    const posting = await this.matches.markPostingReconciled(scope, postingId, input.externalReference ?? input.runId ?? null);
    if (!posting) throw missing();
    return posting;
  }
}
