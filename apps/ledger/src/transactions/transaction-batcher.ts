import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { currentTraceContext, StatementBatcher } from '@bursar/service-kit';
import { DataSource } from 'typeorm';
import { KeyTaken } from '../books/book-refusals';
import { ItemKey, NewEvent, WriteOutcome } from '../books/engine-batch';
import { TransactionPlan } from '../books/transaction-plan';
import { LedgerScope } from '../common/mode';
import { IdempotencyService, PendingKey } from '../idempotency/idempotency.service';
import { BooksEngine, EngineEntry, isRaced, RACE_RETRIES, Verdict } from './books-engine';

/** The events a written transaction records, in its database transaction. */
export type EventsOf = (outcome: WriteOutcome) => NewEvent[];

/** An idempotency key stored with the write, holding the response `respond` builds from it. */
export interface KeyWithResponse {
  pending: PendingKey;
  respond(outcome: WriteOutcome): unknown;
  /** Whether the response shows the accounts as the write leaves them (expansions): it is known only after the write. */
  answersAfterWrite: boolean;
}

/** HTTP status stored with a create's key (a replay answers 200). */
const CREATED = 201;

type Settled = { ok: true; outcome: WriteOutcome } | { ok: false; error: unknown };

/** A submission, built when it arrives: while earlier batches are in flight, not when its own is sent. */
interface Submission {
  scope: LedgerScope;
  key: KeyWithResponse | null;
  outcome: WriteOutcome;
  entry: EngineEntry;
}

/** Most submissions one call carries. */
const MAX_BATCH = 64;
/**
 * Batches of one ledger in flight at once, per process. With one round trip per batch, two beat
 * four and twelve at 20 clients over 50 accounts (bigger batches, fewer commits) and matched one.
 */
const BATCHES_PER_LEDGER = 2;

/**
 * Group commit for new transactions, in one round trip per batch. Submissions that arrive while a
 * ledger's batches are busy queue up and go together in the next call of ledger_write_batch (see
 * its migration), which locks the union of their accounts, checks each against balances that
 * include the ones before it and writes the accepted ones with their events and their idempotency
 * keys holding the responses; a refused one (overdraft, unknown or closed account, failed
 * condition, closed period, used key or ref) gets its error, writes nothing and does not disturb
 * the others. Each write's ids, posting ids and time are chosen here first, so its answer, its
 * event and its sealed stored answer are built before it is sent and travel with it; a
 * submission is built (and serialized) as it arrives, while the batches before it are in flight.
 * Batches in flight never share an account (StatementBatcher holds), so they never wait on each
 * other's row locks: a hot account's submissions pile into the next batch instead. A response that shows the
 * accounts after the write (an expansion) cannot be sealed before it: such a keyed submission is
 * written in a transaction of its own that stores its key once the write has answered.
 */
@Injectable()
export class TransactionBatcher {
  private readonly batcher = new StatementBatcher<Submission, Settled>((batch) => this.write(batch), {
    maxBatch: MAX_BATCH,
    lane: (s) => s.scope.ledgerId,
    inFlight: BATCHES_PER_LEDGER,
    holds: (s) => s.entry.accounts,
  });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly engine: BooksEngine,
    private readonly idempotency: IdempotencyService,
  ) {}

  /**
   * Writes `plan` (a new transaction: it voids nothing) with its events and, when given, its
   * idempotency `key` (rejects with KeyTaken when that is held); with `touched` the outcome carries
   * the accounts as the write left them.
   */
  async submit(scope: LedgerScope, plan: TransactionPlan, events: EventsOf, key: KeyWithResponse | null, touched: boolean): Promise<WriteOutcome> {
    if (plan.voids) throw new Error('the batcher writes new transactions only');
    const { outcome, entry } = await this.engine.entry(scope, plan, (built) => ({
      events: events(built),
      // Taken here, in the request's context: the batch is sent from whichever submission started it.
      trace_context: currentTraceContext(),
      idem: key && this.itemKey(key, built),
      touched: touched || !!key?.answersAfterWrite,
    }));
    const settled = await this.batcher.submit({ scope, key, outcome, entry });
    if (!settled.ok) throw settled.error;
    return settled.outcome;
  }

  private async write(batch: Submission[]): Promise<Settled[]> {
    const { scope } = batch[0];
    const settled: Settled[] = [];
    const now = batch.filter((s) => !s.key?.answersAfterWrite);
    if (now.length > 0) {
      const verdicts = await this.retryingRaces(batch.length, () => this.engine.call(this.dataSource, scope, now.map((s) => s.entry)));
      now.forEach((s, n) => (settled[batch.indexOf(s)] = this.settle(s, verdicts[n])));
    }
    // Each in its own call, after the batch's: a failure here is this item's alone.
    for (const [i, s] of batch.entries()) {
      if (!s.key?.answersAfterWrite) continue;
      const key = s.key;
      settled[i] = await this.retryingRaces(1, () => this.writeKeyAfter(s, key)).catch((error: unknown) => ({ ok: false, error }) as const);
    }
    return settled;
  }

  /**
   * Runs `attempt` again while it meets a write that was in flight as it read: alone, the next call
   * sees that write (so the item gets its refusal); in a batch, StatementBatcher retries each alone.
   */
  private async retryingRaces<T>(batchSize: number, attempt: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (e) {
        if (batchSize > 1 || tries >= RACE_RETRIES || !isRaced(e)) throw e;
      }
    }
  }

  /** The write, then its key holding the response built from the written outcome, in one database transaction. */
  private async writeKeyAfter(s: Submission, key: KeyWithResponse): Promise<Settled> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const [verdict] = await this.engine.call(manager, s.scope, [s.entry]);
        const settled = this.settle(s, verdict);
        if (!settled.ok) return settled;
        const part = this.idempotency.completedKeysPart([{ ...key.pending, status: CREATED, body: key.respond(s.outcome) }], 1);
        const stored: unknown[] = await manager.query(part.sql, part.params);
        if (stored.length === 0) throw new KeyTaken(key.pending.scope.key);
        return settled;
      });
    } catch (error) {
      if (error instanceof KeyTaken) return { ok: false, error };
      throw error;
    }
  }

  /** The key stored with the write: completed with the response now, or (answered after the write) only checked. */
  private itemKey(key: KeyWithResponse, outcome: WriteOutcome): ItemKey {
    const { pending } = key;
    return {
      organization: pending.scope.organizationId,
      mode: pending.scope.mode,
      client: pending.scope.clientId,
      route: pending.scope.route,
      key: pending.scope.key,
      fingerprint: pending.fingerprint,
      status: CREATED,
      body: key.answersAfterWrite ? null : this.idempotency.completedKey(pending, CREATED, key.respond(outcome)).sealedBody,
    };
  }

  private settle(s: Submission, verdict: Verdict): Settled {
    if (!verdict.ok) return verdict;
    if (verdict.touched.length > 0) s.outcome.touched = verdict.touched;
    return { ok: true, outcome: s.outcome };
  }
}
