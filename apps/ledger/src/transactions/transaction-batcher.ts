import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@bursar/errors';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { transactionOpenedWith } from '../common/transaction-opened-with';
import { keyIdOf } from '../idempotency/idempotency.repository';
import { IdempotencyService, PendingKey } from '../idempotency/idempotency.service';
import { BooksWriter, KeyTaken, WriteOutcome } from './books-writer';
import { TransactionPlan } from './transaction-plan';
import { Book, LockedAccount, NewEvent, WRITE_PARAMS } from './transactions.repository';

/** The events a written transaction records, in its database transaction. */
export type EventsOf = (outcome: WriteOutcome) => NewEvent[];

/** An idempotency key stored with the write, holding the response `respond` builds from it. */
export interface KeyWithResponse {
  pending: PendingKey;
  respond(outcome: WriteOutcome): unknown;
}

/** HTTP status stored with a create's key (a replay answers 200). */
const CREATED = 201;

type Settled = { ok: true; outcome: WriteOutcome } | { ok: false; error: unknown };

interface Submission {
  scope: LedgerScope;
  plan: TransactionPlan;
  events: EventsOf;
  key: KeyWithResponse | null;
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

function accountsOf(plan: TransactionPlan): string[] {
  return [...plan.postings.map((p) => p.account), ...plan.conditions.map((c) => c.account)];
}

/** What one ledger has waiting and in flight. */
interface LedgerLane {
  queue: Submission[];
  running: number;
  /** Accounts locked by batches in flight, with how many batches hold each. */
  held: Map<string, number>;
}

/**
 * Group commit for new transactions. Submissions that arrive while a ledger's batches are busy
 * queue up and are written together in the next database transaction: one lock of the union of
 * their accounts (in id order, sent with BEGIN, which also reserves their posting ids), one
 * statement writing all of them with their events and their idempotency keys holding the
 * responses, one commit. Batches in flight never share an account, so they never wait on each
 * other's row locks: a hot account's submissions pile into the next batch instead. (Starting that
 * batch while the previous one commits, its lock queued in Postgres, made batches smaller and was
 * no faster.) The guarantees are the single write's: every submission is checked against
 * balances that include the ones before it, and a refused one (overdraft, unknown account, closed
 * account, failed condition) writes nothing and does not disturb the others. What a batch cannot
 * contain (a used idempotency key, a closed period caught by the trigger, an external ref taken
 * concurrently) rolls the batch back and retries each submission in its own transaction. With
 * nothing in flight a submission goes out at once.
 */
@Injectable()
export class TransactionBatcher {
  private readonly lanes = new Map<string, LedgerLane>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly writer: BooksWriter,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** Writes `plan` with its events and, when given, its idempotency `key` (rejects with KeyTaken when that is held). */
  submit(scope: LedgerScope, plan: TransactionPlan, events: EventsOf, key: KeyWithResponse | null = null): Promise<WriteOutcome> {
    return new Promise((resolve, reject) => {
      const lane = this.lanes.get(scope.ledgerId) ?? { queue: [], running: 0, held: new Map<string, number>() };
      lane.queue.push({ scope, plan, events, key, resolve, reject });
      this.lanes.set(scope.ledgerId, lane);
      this.pump(scope.ledgerId, lane);
    });
  }

  /** Starts batches of queued submissions whose accounts no batch in flight holds. */
  private pump(ledgerId: string, lane: LedgerLane): void {
    while (lane.queue.length > 0 && lane.running < BATCHES_PER_LEDGER) {
      const batch = lane.queue.filter((s) => accountsOf(s.plan).every((a) => !lane.held.has(a))).slice(0, MAX_BATCH);
      if (batch.length === 0) return;
      lane.queue = lane.queue.filter((s) => !batch.includes(s));
      const accounts = [...new Set(batch.flatMap((s) => accountsOf(s.plan)))];
      for (const a of accounts) lane.held.set(a, (lane.held.get(a) ?? 0) + 1);
      lane.running += 1;
      void this.run(batch).finally(() => {
        for (const a of accounts) {
          const left = (lane.held.get(a) ?? 1) - 1;
          if (left === 0) lane.held.delete(a);
          else lane.held.set(a, left);
        }
        lane.running -= 1;
        if (lane.running === 0 && lane.queue.length === 0) this.lanes.delete(ledgerId);
        else this.pump(ledgerId, lane);
      });
    }
  }

  private async run(batch: Submission[]): Promise<void> {
    try {
      const settled = await transactionOpenedWith(
        this.dataSource,
        this.writer.lockOpening(batch[0].scope, batch.map((s) => s.plan)),
        (manager, book) => this.writeAll(manager, batch, book),
      );
      settled.forEach((result, i) => (result.ok ? batch[i].resolve(result.outcome) : batch[i].reject(result.error)));
    } catch (err) {
      const cause = err instanceof BatchBroken ? err.failure : err;
      if (batch.length === 1) return batch[0].reject(cause);
      // One submission broke the shared transaction; alone, it fails and the rest succeed.
      await Promise.all(batch.map((s) => this.run([s])));
    }
  }

  /**
   * Checks each submission against the book (its accounts, locked), which then carries its effect
   * for the next one, and writes every accepted one, their events and their idempotency keys
   * (each holding its answer) in a single statement; refused ones get their error and write
   * nothing. A key held by another request breaks the batch: its write must roll back.
   */
  private async writeAll(manager: EntityManager, batch: Submission[], book: Book): Promise<Settled[]> {
    const settled: Settled[] = [];
    const accepted: { submission: Submission; index: number; touched: LockedAccount[] }[] = [];
    batch.forEach((submission, index) => {
      try {
        const touched = this.writer.check(submission.plan, book);
        for (const account of touched) book.accounts.set(account.id, account);
        accepted.push({ submission, index, touched });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        settled[index] = { ok: false, error };
      }
    });
    if (accepted.length === 0) return settled;
    const { scope } = batch[0];
    const plans = accepted.map((a) => a.submission.plan);
    const outcomes: WriteOutcome[] = this.writer.build(scope, plans, book).map((written, i) => ({ ...written, touched: accepted[i].touched }));
    const events = accepted.flatMap(({ submission }, i) => submission.events(outcomes[i]));
    const keyed = accepted.flatMap(({ submission: { key } }, i) => (key ? [{ ...key.pending, status: CREATED, body: key.respond(outcomes[i]) }] : []));
    try {
      const stored = await this.writer.store(
        manager,
        scope,
        plans.map((plan, i) => ({ plan, written: outcomes[i] })),
        { events, keys: keyed.length > 0 ? this.idempotency.completedKeysPart(keyed, WRITE_PARAMS + 1) : null },
      );
      const held = keyed.find((k) => !stored.has(keyIdOf(k.scope)));
      if (held) throw new KeyTaken(held.scope.key);
    } catch (error) {
      throw batch.length === 1 ? error : new BatchBroken(error);
    }
    accepted.forEach(({ index }, i) => (settled[index] = { ok: true, outcome: outcomes[i] }));
    return settled;
  }
}
