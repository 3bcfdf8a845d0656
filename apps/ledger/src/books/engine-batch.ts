import { randomUUID } from 'node:crypto';
import type { TraceCarrier } from '@bursar/service-kit';
import type { PostingEntity } from '../postings/posting.entity';
import type { TransactionEntity } from '../transactions/transaction.entity';
import type { AccountState, AccountStateRow } from './account-state';
import { TransactionPlan } from './transaction-plan';

/*
 * The books engine's call, as data: what the service sends ledger_write_batch
 * (sql/ledger-write-batch.sql) and what it answers. Building it is pure; the engine's rules live in
 * the function alone.
 */

export interface ExternalRefRecord {
  id: string;
  transactionId: string;
  rail: string;
  refKind: string;
  value: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

/** The rows a plan writes, built before it is sent, so its answer and event travel with it. */
export interface WrittenTransaction {
  transaction: TransactionEntity;
  postings: PostingEntity[];
  refs: ExternalRefRecord[];
}

/** An event to append with a write (the events table's row, minus what the scope gives). */
export interface NewEvent {
  type: string;
  resourceId: string | null;
  data: object;
}

/** The idempotency key a write stores completed; without `body` it is only checked (the caller stores it). */
export interface ItemKey {
  organization: string;
  mode: string;
  client: string;
  route: string;
  key: string;
  fingerprint: string;
  status: number;
  body: string | null;
}

/** One item of a call: a new transaction, or (with `commit`) the commit of a transaction's pending legs. */
export interface BatchItem {
  id?: string;
  key?: string | null;
  kind?: string;
  reverses?: string | null;
  refund_amount?: string | null;
  refund_currency?: string | null;
  metadata?: Record<string, unknown>;
  value_date: Date;
  /** Its booking and creation time. */
  created_at?: Date;
  postings?: { id: string; account: string; amount: string; currency: string; direction: string; pending: boolean; tags: Record<string, string> }[];
  refs?: { id: string; rail: string; kind: string; value: string; metadata: Record<string, unknown> }[];
  conditions?: { account: string; lock_version?: number; min_available?: string; max_available?: string }[];
  /** Pending postings of other transactions it releases (a reversal voids them). */
  voids?: string[];
  /** The transaction whose open pending legs become posted. */
  commit?: string;
  events: { type: string; resource_id: string | null; data: object }[];
  /** The submitting request's trace context, stored with its events (null when tracing is off). */
  trace_context: TraceCarrier | null;
  idem: ItemKey | null;
  /** Whether the result carries the touched accounts as they stand after the item. */
  touched: boolean;
}

/** How a call treats its items: `dryRun` writes nothing; `atomic` writes nothing unless every item is accepted (or a replay). */
export interface EngineMode {
  dryRun?: boolean;
  atomic?: boolean;
}

/** A call but its items: one ledger, the idempotency take-over window, the accounts to lock, the mode. */
export interface WriteBatchHead {
  ledger: string;
  organization: string;
  mode: string;
  stale_before: Date;
  expired_before: Date | null;
  /** Every account the items name, move or release. */
  accounts: string[];
  dry_run: boolean;
  atomic: boolean;
}

/** A call's parameter from its head and its items, each already JSON (so an item is serialized once, when it is built). */
export function writeBatchJson(head: WriteBatchHead, items: string[]): string {
  return `${JSON.stringify(head).slice(0, -1)},"items":[${items.join(',')}]}`;
}

/** Why the engine refused an item. */
export type EngineRefusal =
  | { ok?: undefined; error: 'unknown_account'; postings: number[] }
  | { ok?: undefined; error: 'currency_mismatch'; posting: number; account_currency: string }
  | { ok?: undefined; error: 'account_closed'; posting: number }
  | { ok?: undefined; error: 'precondition_failed'; condition: number; failed: string; actual: string | number | null }
  | { ok?: undefined; error: 'insufficient_funds'; account: string; currency: string; available: string; available_after: string; overdraft_limit: string }
  | { ok?: undefined; error: 'period_closed' | 'key_taken' }
  | { ok?: undefined; error: 'duplicate_external_ref'; ref: number };

/** What the engine answers for one item: accepted (with the touched accounts when asked), or why not. */
export type BatchItemResult = { ok: true; touched: AccountStateRow[] } | EngineRefusal;

/** Every account a plan names, moves or releases: the ones its call locks. */
export function accountsOf(plan: TransactionPlan): string[] {
  return [
    ...plan.postings.map((p) => p.account),
    ...plan.conditions.map((c) => c.account),
    ...(plan.voids?.postings.map((p) => p.account) ?? []),
  ];
}

/** The rows `plan` writes, with fresh ids, `postingIds` (taken in order) and the write time `now`. */
export function writtenOf(ledgerId: string, plan: TransactionPlan, postingIds: string[], now: Date): WrittenTransaction {
  if (postingIds.length !== plan.postings.length) throw new Error('one posting id per posting');
  const id = randomUUID();
  return {
    transaction: {
      id,
      ledgerId,
      idempotencyKey: plan.idempotencyKey,
      kind: plan.kind,
      reverses: plan.reverses,
      refundAmount: plan.refund?.amount.toString() ?? null,
      refundCurrency: plan.refund?.currency ?? null,
      metadata: plan.metadata,
      valueDate: plan.valueDate,
      bookingDate: now,
      createdAt: now,
      updatedAt: now,
    },
    postings: plan.postings.map((p, i) => ({
      id: postingIds[i],
      ledgerId,
      transactionId: id,
      accountId: p.account,
      amount: p.amount.toString(),
      currency: p.currency,
      direction: p.direction,
      pending: p.pending,
      committedAt: null,
      voidedAt: null,
      tags: p.tags,
      valueDate: plan.valueDate,
      reconciledAt: null,
      reconciliationReference: null,
      createdAt: now,
    })),
    refs: plan.externalRefs.map((r) => ({
      id: randomUUID(),
      transactionId: id,
      rail: r.rail,
      refKind: r.kind,
      value: r.value,
      metadata: r.metadata,
      createdAt: now,
    })),
  };
}

/** What an item carries besides its rows: events, trace context, the key it stores, whether it answers the touched accounts. */
export type ItemExtras = Pick<BatchItem, 'trace_context' | 'idem' | 'touched'> & { events: NewEvent[] };

/** The engine's item for `plan`, written as `written`. */
export function itemOf(plan: TransactionPlan, written: WrittenTransaction, extras: ItemExtras): BatchItem {
  const t = written.transaction;
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
    postings: written.postings.map((p) => ({
      id: p.id,
      account: p.accountId,
      amount: p.amount,
      currency: p.currency,
      direction: p.direction,
      pending: p.pending,
      tags: p.tags,
    })),
    refs: written.refs.map((r) => ({ id: r.id, rail: r.rail, kind: r.refKind, value: r.value, metadata: r.metadata })),
    conditions: plan.conditions.map((c) => ({
      account: c.account,
      lock_version: c.lockVersion,
      min_available: c.minAvailable?.toString(),
      max_available: c.maxAvailable?.toString(),
    })),
    ...(plan.voids && { voids: plan.voids.postingIds }),
    events: extras.events.map((e) => ({ type: e.type, resource_id: e.resourceId, data: e.data })),
    trace_context: extras.trace_context,
    idem: extras.idem,
    touched: extras.touched,
  };
}

/** What a write produced: the rows, and every touched account as it stands after the write. */
export interface WriteOutcome extends WrittenTransaction {
  touched: AccountState[];
}

/** The item committing `transaction`'s open pending legs (dated as it is: a closed period refuses it). */
export function commitItem(transaction: Pick<TransactionEntity, 'id' | 'valueDate'>): BatchItem {
  return { commit: transaction.id, value_date: transaction.valueDate, events: [], trace_context: null, idem: null, touched: false };
}
