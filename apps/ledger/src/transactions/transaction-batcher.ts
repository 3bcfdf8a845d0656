import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { currentTraceContext, StatementBatcher } from '@bursar/service-kit';
import { DataSource, QueryFailedError } from 'typeorm';
import { LedgerScope } from '../common/mode';
import { IdempotencyService, PendingKey } from '../idempotency/idempotency.service';
import {
  accountClosed,
  BooksWriter,
  currencyMismatch,
  duplicateExternalRef,
  insufficientFunds,
  KeyTaken,
  periodClosed,
  preconditionFailed,
  unknownAccounts,
  WriteOutcome,
} from './books-writer';
import { PostingIdPool } from './posting-id-pool';
import { TransactionPlan } from './transaction-plan';
import {
  BatchItem,
  BatchItemResult,
  lockedAccountOf,
  NewEvent,
  TransactionsRepository,
  WRITE_RACED,
  writeBatchJson,
} from './transactions.repository';

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
  plan: TransactionPlan;
  key: KeyWithResponse | null;
  outcome: WriteOutcome;
  /** Its BatchItem, as JSON. */
  item: string;
  /** The accounts it locks. */
  accounts: string[];
}

/** Most submissions one call carries. */
const MAX_BATCH = 64;
/**
 * Batches of one ledger in flight at once, per process. With one round trip per batch, two beat
 * four and twelve at 20 clients over 50 accounts (bigger batches, fewer commits) and matched one.
 */
const BATCHES_PER_LEDGER = 2;
/** Calls of one lone submission that met a concurrent write's key or ref before it is given up. */
const RACE_RETRIES = 3;

function accountsOf(plan: TransactionPlan): string[] {
  return [...plan.postings.map((p) => p.account), ...plan.conditions.map((c) => c.account)];
}

function refusal(plan: TransactionPlan, r: Exclude<BatchItemResult, { ok: true }>): unknown {
  switch (r.error) {
    case 'unknown_account':
      return unknownAccounts(plan, r.postings);
    case 'currency_mismatch':
      return currencyMismatch(plan, r.posting, r.account_currency);
    case 'account_closed':
      return accountClosed(plan, r.posting);
    case 'precondition_failed':
      return preconditionFailed(plan, r.condition, r.failed, r.actual);
    case 'insufficient_funds':
      return insufficientFunds({
        account: r.account,
        currency: r.currency,
        available: r.available,
        available_after: r.available_after,
        overdraft_limit: r.overdraft_limit,
      });
    case 'period_closed':
      return periodClosed(plan.valueDate);
    case 'key_taken':
      return new KeyTaken(plan.idempotencyKey ?? '');
    case 'duplicate_external_ref':
      return duplicateExternalRef(plan.externalRefs[r.ref]);
  }
}

const raced = (e: unknown) => e instanceof QueryFailedError && (e.driverError as { code?: string }).code === WRITE_RACED;

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
    holds: (s) => s.accounts,
  });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly writer: BooksWriter,
    private readonly transactions: TransactionsRepository,
    private readonly postingIds: PostingIdPool,
    private readonly idempotency: IdempotencyService,
  ) {}

  /**
   * Writes `plan` (a new transaction: it voids nothing) with its events and, when given, its
   * idempotency `key` (rejects with KeyTaken when that is held); with `touched` the outcome carries
   * the accounts as the write left them.
   */
  async submit(scope: LedgerScope, plan: TransactionPlan, events: EventsOf, key: KeyWithResponse | null, touched: boolean): Promise<WriteOutcome> {
    if (plan.voids) throw new Error('the batcher writes new transactions only');
    const postingIds = await this.postingIds.take(plan.postings.length);
    const [written] = this.writer.build(scope, [plan], { postingIds, now: new Date() });
    const outcome: WriteOutcome = { ...written, touched: [] };
    const item = JSON.stringify(this.itemOf(plan, outcome, events, key, touched));
    const settled = await this.batcher.submit({ scope, plan, key, outcome, item, accounts: accountsOf(plan) });
    if (!settled.ok) throw settled.error;
    return settled.outcome;
  }

  private async write(batch: Submission[]): Promise<Settled[]> {
    const { scope } = batch[0];
    const { staleBefore, expiredBefore } = this.idempotency.takeOverWindow();
    const call = (subs: Submission[]) =>
      writeBatchJson(
        {
          ledger: scope.ledgerId,
          organization: scope.organizationId,
          mode: scope.mode,
          stale_before: staleBefore,
          expired_before: expiredBefore,
          accounts: [...new Set(subs.flatMap((s) => s.accounts))],
        },
        subs.map((s) => s.item),
      );
    const settled: Settled[] = [];
    const now = batch.filter((s) => !s.key?.answersAfterWrite);
    if (now.length > 0) {
      const results = await this.retryingRaces(batch.length, () => this.transactions.writeBatch(this.dataSource, call(now)));
      now.forEach((s, n) => (settled[batch.indexOf(s)] = this.settle(s, results[n])));
    }
    // Each in its own call, after the batch's: a failure here is this item's alone.
    for (const [i, s] of batch.entries()) {
      if (!s.key?.answersAfterWrite) continue;
      const key = s.key;
      settled[i] = await this.retryingRaces(1, () => this.writeKeyAfter(s, key, call([s]))).catch((error: unknown) => ({ ok: false, error }) as const);
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
        if (batchSize > 1 || tries >= RACE_RETRIES || !raced(e)) throw e;
      }
    }
  }

  /** The write, then its key holding the response built from the written outcome, in one database transaction. */
  private async writeKeyAfter(s: Submission, key: KeyWithResponse, call: string): Promise<Settled> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const [result] = await this.transactions.writeBatch(manager, call);
        const settled = this.settle(s, result);
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

  /** The function's item for `plan` built as `outcome`; its key goes completed with the response when that is known now. */
  private itemOf(plan: TransactionPlan, outcome: WriteOutcome, events: EventsOf, key: KeyWithResponse | null, touched: boolean): BatchItem {
    const t = outcome.transaction;
    return {
      id: t.id,
      key: t.idempotencyKey,
      kind: t.kind,
      reverses: t.reverses,
      refund_amount: t.refundAmount,
      refund_currency: t.refundCurrency,
      metadata: t.metadata,
      value_date: t.valueDate,
      created_at: t.createdAt,
      postings: outcome.postings.map((p) => ({
        id: p.id,
        account: p.accountId,
        amount: p.amount,
        currency: p.currency,
        direction: p.direction,
        pending: p.pending,
        tags: p.tags,
      })),
      refs: outcome.refs.map((r) => ({ id: r.id, rail: r.rail, kind: r.refKind, value: r.value, metadata: r.metadata })),
      conditions: plan.conditions.map((c) => ({
        account: c.account,
        lock_version: c.lockVersion,
        min_available: c.minAvailable?.toString(),
        max_available: c.maxAvailable?.toString(),
      })),
      events: events(outcome).map((e) => ({ type: e.type, resource_id: e.resourceId, data: e.data })),
      // Taken here, in the request's context: the batch is sent from whichever submission started it.
      trace_context: currentTraceContext(),
      idem: key && {
        organization: key.pending.scope.organizationId,
        mode: key.pending.scope.mode,
        client: key.pending.scope.clientId,
        route: key.pending.scope.route,
        key: key.pending.scope.key,
        fingerprint: key.pending.fingerprint,
        status: CREATED,
        body: key.answersAfterWrite ? null : this.idempotency.completedKey(key.pending, CREATED, key.respond(outcome)).sealedBody,
      },
      touched: touched || !!key?.answersAfterWrite,
    };
  }

  private settle(s: Submission, result: BatchItemResult): Settled {
    if (!result.ok) return { ok: false, error: refusal(s.plan, result) };
    if (result.touched.length > 0) s.outcome.touched = result.touched.map(lockedAccountOf);
    return { ok: true, outcome: s.outcome };
  }
}
