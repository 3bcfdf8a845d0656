import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@bursar/errors';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { BooksWriter, KeyTaken, WriteOutcome } from './books-writer';
import { TransactionPlan } from './transaction-plan';

/** Records a written transaction's events in its database transaction. */
export type RecordEvents = (manager: EntityManager, outcome: WriteOutcome) => Promise<unknown>;

interface Submission {
  scope: LedgerScope;
  plan: TransactionPlan;
  events: RecordEvents;
  resolve(outcome: WriteOutcome): void;
  reject(err: unknown): void;
}

/** Most submissions one database transaction carries. */
const MAX_BATCH = 64;
/** Batches of one ledger in flight at once, per process. */
const BATCHES_PER_LEDGER = 4;

/** A failure that leaves the batch's database transaction unusable: every item is retried alone. */
class BatchBroken extends Error {
  constructor(readonly failure: unknown) {
    super('batch broken');
  }
}

/**
 * Group commit for new transactions. Submissions that arrive while a ledger's batches are busy
 * queue up and are written together in the next database transaction: one lock of the union of
 * their accounts (in id order), one statement per transaction, one commit. The guarantees are the
 * single write's: every submission is checked against balances that include the ones before it,
 * and a refused submission (overdraft, unknown account, failed condition, used key) writes nothing
 * and does not disturb the others. A failure the batch cannot contain (a closed period caught by
 * the trigger, an external ref taken concurrently) rolls the batch back and retries each
 * submission in its own transaction. With no queue, a submission goes out at once: no added wait.
 */
@Injectable()
export class TransactionBatcher {
  private readonly queues = new Map<string, Submission[]>();
  private readonly running = new Map<string, number>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly writer: BooksWriter,
  ) {}

  submit(scope: LedgerScope, plan: TransactionPlan, events: RecordEvents): Promise<WriteOutcome> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(scope.ledgerId) ?? [];
      queue.push({ scope, plan, events, resolve, reject });
      this.queues.set(scope.ledgerId, queue);
      this.pump(scope.ledgerId);
    });
  }

  private pump(ledgerId: string): void {
    const queue = this.queues.get(ledgerId);
    while (queue && queue.length > 0 && (this.running.get(ledgerId) ?? 0) < BATCHES_PER_LEDGER) {
      const batch = queue.splice(0, MAX_BATCH);
      this.running.set(ledgerId, (this.running.get(ledgerId) ?? 0) + 1);
      void this.run(batch).finally(() => {
        const left = (this.running.get(ledgerId) ?? 1) - 1;
        if (left === 0) this.running.delete(ledgerId);
        else this.running.set(ledgerId, left);
        if (queue.length === 0 && left === 0) this.queues.delete(ledgerId);
        this.pump(ledgerId);
      });
    }
  }

  private async run(batch: Submission[]): Promise<void> {
    try {
      const settled = await this.dataSource.transaction((manager) => this.writeAll(manager, batch));
      settled.forEach((result, i) => (result.ok ? batch[i].resolve(result.outcome) : batch[i].reject(result.error)));
    } catch (err) {
      const cause = err instanceof BatchBroken ? err.failure : err;
      if (batch.length === 1) return batch[0].reject(cause);
      // One submission broke the shared transaction; alone, it fails and the rest succeed.
      await Promise.all(batch.map((s) => this.run([s])));
    }
  }

  private async writeAll(
    manager: EntityManager,
    batch: Submission[],
  ): Promise<({ ok: true; outcome: WriteOutcome } | { ok: false; error: unknown })[]> {
    const book = await this.writer.lock(manager, batch[0].scope, batch.map((s) => s.plan));
    const settled: ({ ok: true; outcome: WriteOutcome } | { ok: false; error: unknown })[] = [];
    for (const s of batch) {
      let after;
      try {
        after = this.writer.check(s.plan, book);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        settled.push({ ok: false, error });
        continue;
      }
      try {
        const outcome = await this.writer.write(manager, s.scope, s.plan, book, after);
        await s.events(manager, outcome);
        settled.push({ ok: true, outcome });
      } catch (error) {
        if (error instanceof KeyTaken) settled.push({ ok: false, error });
        else throw batch.length === 1 ? error : new BatchBroken(error);
      }
    }
    return settled;
  }
}
