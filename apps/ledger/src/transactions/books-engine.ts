import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { AccountState, accountStateOf } from '../books/account-state';
import { RefusedPlan, refusalOf } from '../books/book-refusals';
import { accountsOf, commitItem, EngineMode, ItemExtras, itemOf, WriteOutcome, writeBatchJson, writtenOf } from '../books/engine-batch';
import { TransactionPlan } from '../books/transaction-plan';
import { LedgerScope } from '../common/mode';
import { PostingEntity } from '../postings/posting.entity';
import { TransactionEntity } from './transaction.entity';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { PostingIdPool } from './posting-id-pool';
import { TransactionsRepository, WRITE_RACED } from './transactions.repository';

/** One item of an engine call: the plan its refusal names, its BatchItem as JSON, the accounts it locks. */
export interface EngineEntry {
  plan: RefusedPlan;
  item: string;
  accounts: string[];
}

/**
 * The entry committing `transaction`'s open pending legs: no postings of its own to name in a
 * refusal, dated as the transaction (a closed period refuses it), locking the legs' accounts.
 */
export function commitEntry(transaction: Pick<TransactionEntity, 'id' | 'valueDate'>, openLegs: readonly Pick<PostingEntity, 'accountId'>[]): EngineEntry {
  const plan: RefusedPlan = { idempotencyKey: null, valueDate: transaction.valueDate, postings: [], conditions: [], externalRefs: [] };
  return { plan, item: JSON.stringify(commitItem(transaction)), accounts: openLegs.map((p) => p.accountId) };
}

/** The engine's verdict on one item: accepted (touched accounts as it left them, when asked), or the API error refusing it. */
export type Verdict = { ok: true; touched: AccountState[] } | { ok: false; error: Error };

/** A plan's entry, and its outcome as it will be written (touched accounts filled in by the verdict). */
export interface PreparedEntry {
  outcome: WriteOutcome;
  entry: EngineEntry;
}

/** An item that records no event of its own, stores no key and answers the accounts it touched. */
const PLAIN = (): ItemExtras => ({ events: [], trace_context: null, idem: null, touched: true });

/** Calls of an autocommit call that met a concurrent write's key or ref before it is given up. */
export const RACE_RETRIES = 3;

/** Whether `e` is the engine meeting a key or ref a write still in flight took as it read: calling again sees it. */
export const isRaced = (e: unknown) => e instanceof QueryFailedError && (e.driverError as { code?: string }).code === WRITE_RACED;

/**
 * The service side of the books engine, ledger_write_batch: every path that moves money (create,
 * dry run, bulk, reversal, refund, reserve operation, commit) sends its items through `call`, and
 * the function judges and writes them. Here are only the rows' ids and times, chosen first so an
 * answer is built before its write, and the rendering of each verdict.
 */
@Injectable()
export class BooksEngine {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: TransactionsRepository,
    private readonly postingIds: PostingIdPool,
    private readonly idempotency: IdempotencyService,
  ) {}

  /**
   * The rows `plan` will write (fresh ids, posting ids drawn in request order, the write time) as
   * its outcome, and its entry, whose extras (events, key) may be built from that outcome.
   */
  async entry(scope: LedgerScope, plan: TransactionPlan, extras: (outcome: WriteOutcome) => ItemExtras = PLAIN): Promise<PreparedEntry> {
    return this.prepared(scope, plan, await this.postingIds.take(plan.postings.length), extras);
  }

  /**
   * `entry` for each of `plans` (extras told the plan's index), their posting ids drawn together,
   * in order: a batch waits for the pool once, however many items it has.
   */
  async entries(scope: LedgerScope, plans: TransactionPlan[], extras: (outcome: WriteOutcome, n: number) => ItemExtras): Promise<PreparedEntry[]> {
    const ids = await this.postingIds.take(plans.reduce((count, plan) => count + plan.postings.length, 0));
    let next = 0;
    return plans.map((plan, n) => this.prepared(scope, plan, ids.slice(next, (next += plan.postings.length)), (outcome) => extras(outcome, n)));
  }

  private prepared(scope: LedgerScope, plan: TransactionPlan, postingIds: string[], extras: (outcome: WriteOutcome) => ItemExtras): PreparedEntry {
    const outcome = { ...writtenOf(scope.ledgerId, plan, postingIds, new Date()), touched: [] };
    return { outcome, entry: { plan, item: JSON.stringify(itemOf(plan, outcome, extras(outcome))), accounts: accountsOf(plan) } };
  }

  /**
   * Judges and writes `entries` in one call, in order, inside `executor`'s transaction (a
   * DataSource: autocommit, one round trip). One verdict per entry.
   */
  async call(executor: DataSource | EntityManager, scope: LedgerScope, entries: EngineEntry[], mode: EngineMode = {}): Promise<Verdict[]> {
    const { staleBefore, expiredBefore } = this.idempotency.takeOverWindow();
    const batch = writeBatchJson(
      {
        ledger: scope.ledgerId,
        organization: scope.organizationId,
        mode: scope.mode,
        stale_before: staleBefore,
        expired_before: expiredBefore,
        accounts: [...new Set(entries.flatMap((e) => e.accounts))],
        dry_run: mode.dryRun ?? false,
        atomic: mode.atomic ?? false,
      },
      entries.map((e) => e.item),
    );
    const results = await this.transactions.writeBatch(executor, batch);
    return results.map((r, i) => (r.ok ? { ok: true, touched: r.touched.map(accountStateOf) } : { ok: false, error: refusalOf(entries[i].plan, r) }));
  }

  /** `call` in autocommit, called again when it met a write in flight (nothing was written then). */
  async run(scope: LedgerScope, entries: EngineEntry[], mode: EngineMode = {}): Promise<Verdict[]> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.call(this.dataSource, scope, entries, mode);
      } catch (e) {
        if (tries >= RACE_RETRIES || !isRaced(e)) throw e;
      }
    }
  }
}
