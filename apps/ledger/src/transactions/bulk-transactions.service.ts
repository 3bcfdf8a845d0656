import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError, normalizeError } from '@bursar/errors';
import { DataSource } from 'typeorm';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { EventsService } from '../events/events.service';
import { BooksWriter, KeyTaken } from './books-writer';
import { BulkTransactionsDto } from './dto/create-transaction.dto';
import { TransactionPlan } from './transaction-plan';
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

/** Rolls an atomic batch back after every item has been judged. */
class AtomicBatchFailed extends Error {
  constructor(readonly results: BulkItemResult[]) {
    super('atomic batch failed');
  }
}

/**
 * POST /transactions/bulk. Each item carries its own idempotency key; a known key answers
 * `replayed`. Non-atomic items stand alone; an atomic batch is one database transaction where
 * one failure fails all (the culprits carry their error, the rest `invalid_request`).
 */
@Injectable()
export class BulkTransactionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: TransactionsRepository,
    private readonly service: TransactionsService,
    private readonly writer: BooksWriter,
    private readonly events: EventsService,
  ) {}

  async run(scope: LedgerScope, body: BulkTransactionsDto): Promise<{ atomic: boolean; results: BulkItemResult[] }> {
    const atomic = body.atomic ?? false;
    const results = atomic ? await this.atomic(scope, body) : await this.oneByOne(scope, body);
    return { atomic, results };
  }

  /** Items are submitted together, so the batcher can write them in few database transactions. */
  private oneByOne(scope: LedgerScope, body: BulkTransactionsDto): Promise<BulkItemResult[]> {
    return Promise.all(
      body.transactions.map(async (item): Promise<BulkItemResult> => {
        const key = item.idempotency_key;
        try {
          const written = await this.service.create(scope, item, key, new Set());
          return { idempotency_key: key, status: written.replayed ? 'replayed' : 'created', transaction: written.transaction };
        } catch (err) {
          return { idempotency_key: key, status: 'error', error: itemError(err) };
        }
      }),
    );
  }

  private async atomic(scope: LedgerScope, body: BulkTransactionsDto): Promise<BulkItemResult[]> {
    const keys = body.transactions.map((t) => t.idempotency_key);
    if (new Set(keys).size !== keys.length) {
      throw LedgerErrors.error('invalid_request', { message: 'Idempotency keys repeat within the batch', param: 'transactions' });
    }
    const plans: (TransactionPlan | ItemError)[] = body.transactions.map((item) => {
      try {
        return this.service.planOf(item, item.idempotency_key);
      } catch (err) {
        return itemError(err);
      }
    });
    try {
      return await this.dataSource.transaction(async (manager) => {
        const valid = plans.filter((p): p is TransactionPlan => 'postings' in p);
        const book = await this.writer.lock(manager, scope, valid);
        const results: BulkItemResult[] = [];
        let failed = plans.length !== valid.length;
        for (const [i, plan] of plans.entries()) {
          const key = keys[i];
          if (!('postings' in plan)) {
            results.push({ idempotency_key: key, status: 'error', error: plan });
            continue;
          }
          const existing = await this.transactions.findByKey(scope, key);
          if (existing) {
            results.push({ idempotency_key: key, status: 'replayed', transaction: (await this.service.present(scope, [existing], new Set()))[0] });
            continue;
          }
          try {
            // After a failure nothing more is written; later items are only judged.
            if (failed) {
              this.writer.check(plan, book);
              results.push({ idempotency_key: key, status: 'created' });
              continue;
            }
            const outcome = await this.writer.apply(manager, scope, plan, book);
            const presented = presentOutcome(outcome);
            await this.events.record(manager, scope, 'transaction.created', outcome.transaction.id, presented);
            results.push({ idempotency_key: key, status: 'created', transaction: presented });
          } catch (err) {
            if (err instanceof KeyTaken) throw err;
            failed = true;
            results.push({ idempotency_key: key, status: 'error', error: itemError(err) });
          }
        }
        if (failed) throw new AtomicBatchFailed(results);
        return results;
      });
    } catch (err) {
      if (!(err instanceof AtomicBatchFailed)) throw err;
      return err.results.map((r) =>
        r.status === 'error'
          ? r
          : {
              idempotency_key: r.idempotency_key,
              status: 'error' as const,
              error: { code: 'invalid_request', message: 'Not applied: another item of this atomic batch failed' },
            },
      );
    }
  }
}
