import { Injectable } from '@nestjs/common';
import { ApiError, normalizeError } from '@bursar/errors';
import { currentTraceContext } from '@bursar/service-kit';
import { KeyTaken } from '../books/book-refusals';
import { TransactionPlan } from '../books/transaction-plan';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { BooksEngine, Verdict } from './books-engine';
import { BulkTransactionsDto } from './dto/create-transaction.dto';
import { PresentedTransaction } from './transaction.presenter';
import { TransactionsRepository } from './transactions.repository';
import { presentOutcome, TransactionsService } from './transactions.service';

type ItemError = { code: string; message: string; hint?: string; param?: string; details?: Record<string, unknown> };

export interface BulkItemResult {
  idempotency_key: string;
  status: 'created' | 'replayed' | 'error';
  transaction?: PresentedTransaction;
  error?: ItemError;
}

/** A coded failure as a bulk result carries it; anything unexpected still surfaces as a 500. */
function itemError(err: unknown): ItemError {
  if (!(err instanceof ApiError)) throw err;
  const n = normalizeError(err);
  return { code: n.code ?? 'invalid_request', message: n.message, hint: n.hint, param: n.param, details: n.details };
}

const NOT_APPLIED: ItemError = { code: 'invalid_request', message: 'Not applied: another item of this atomic batch failed' };

/** An item's plan, or why it has none (it does not balance). */
type Planned = { plan: TransactionPlan } | { error: ItemError };

/**
 * POST /transactions/bulk, as one call of the books engine for the whole batch: items are judged in
 * order against running totals, exactly as the same items sent one by one would be. Each item's
 * idempotency key names its transaction; a known key answers `replayed`. Non-atomic items stand
 * alone; an atomic batch writes all or nothing (the culprits carry their error, the rest
 * `invalid_request`).
 */
@Injectable()
export class BulkTransactionsService {
  constructor(
    private readonly engine: BooksEngine,
    private readonly transactions: TransactionsRepository,
    private readonly service: TransactionsService,
  ) {}

  async run(scope: LedgerScope, body: BulkTransactionsDto): Promise<{ atomic: boolean; results: BulkItemResult[] }> {
    const atomic = body.atomic ?? false;
    const keys = body.transactions.map((t) => t.idempotency_key);
    if (atomic && new Set(keys).size !== keys.length) {
      throw LedgerErrors.error('invalid_request', { message: 'Idempotency keys repeat within the batch', param: 'transactions' });
    }
    const planned = body.transactions.map((item): Planned => {
      try {
        return { plan: this.service.planOf(item, item.idempotency_key) };
      } catch (err) {
        return { error: itemError(err) };
      }
    });
    // The items with a plan, n-th of them the i-th item.
    const items = planned.flatMap((p, i) => ('plan' in p ? [{ i, plan: p.plan }] : []));
    const trace = currentTraceContext();
    // An item's wire form is built once: its event and its result carry the same.
    const presented: PresentedTransaction[] = [];
    const entries = await this.engine.entries(
      scope,
      items.map((item) => item.plan),
      (outcome, n) => {
        presented[n] = presentOutcome(outcome);
        return { events: [{ type: 'transaction.created', resourceId: outcome.transaction.id, data: presented[n] }], trace_context: trace, idem: null, touched: false };
      },
    );
    // An atomic batch with an item that does not balance is judged whole and written not at all.
    const unplanned = items.length < planned.length;
    const verdicts = entries.length === 0 ? [] : await this.engine.run(scope, entries.map((e) => e.entry), { atomic, dryRun: atomic && unplanned });
    const nthOf = new Map(items.map((item, n) => [item.i, n]));
    const replays = await this.replays(scope, verdicts);
    const results = keys.map((key, i): BulkItemResult => {
      const p = planned[i];
      if ('error' in p) return { idempotency_key: key, status: 'error', error: p.error };
      const n = nthOf.get(i) as number;
      const verdict = verdicts[n];
      if (verdict.ok) return { idempotency_key: key, status: 'created', transaction: presented[n] };
      const replay = verdict.error instanceof KeyTaken ? replays.get(verdict.error.key) : undefined;
      if (replay) return { idempotency_key: key, status: 'replayed', transaction: replay };
      return { idempotency_key: key, status: 'error', error: itemError(verdict.error) };
    });
    if (!atomic || results.every((r) => r.status !== 'error')) return { atomic, results };
    return { atomic, results: results.map((r) => (r.status === 'error' ? r : { idempotency_key: r.idempotency_key, status: 'error', error: NOT_APPLIED })) };
  }

  /** The transactions the keys of refused-as-taken items name, presented, by key. */
  private async replays(scope: LedgerScope, verdicts: Verdict[]): Promise<Map<string, PresentedTransaction>> {
    const keys = verdicts.flatMap((v) => (!v.ok && v.error instanceof KeyTaken ? [v.error.key] : []));
    if (keys.length === 0) return new Map();
    const existing = await this.transactions.findByKeys(scope, keys);
    const presented = await this.service.present(scope, existing, new Set());
    return new Map(existing.map((t, i) => [t.idempotencyKey as string, presented[i]]));
  }
}
