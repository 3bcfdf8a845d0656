import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { QueryFailedError, EntityManager } from 'typeorm';
import { BalanceFigures, balanceFigures, BalanceTotals, ZERO_TOTALS } from '../balances/balance';
import { LedgerScope } from '../common/mode';
import { PostingEntity } from '../postings/posting.entity';
import { PlannedPosting, TransactionPlan } from './transaction-plan';
import { TransactionEntity } from './transaction.entity';
import { TransactionErrors } from './transaction-errors';
import { PostingIdPool } from './posting-id-pool';
import { BalanceDelta, Book, LockedAccount, TransactionsRepository, WriteRows, WrittenTransaction } from './transactions.repository';

/** What a write produced: the rows, and every touched account as it stands after the write. */
export interface WriteOutcome extends WrittenTransaction {
  touched: LockedAccount[];
}

/** Raised when the idempotency key already names a transaction; nothing was written. */
export class KeyTaken extends Error {
  constructor(readonly key: string) {
    super(`idempotency key ${key} already names a transaction`);
  }
}

function totalsDelta(postings: PlannedPosting[], sign: 1n | -1n, into: Map<string, BalanceTotals>): void {
  for (const p of postings) {
    const t = into.get(p.account) ?? { ...ZERO_TOTALS };
    const amount = sign * p.amount;
    if (p.pending) {
      if (p.direction === 'debit') t.pendingDebits += amount;
      else t.pendingCredits += amount;
    } else if (p.direction === 'debit') t.postedDebits += amount;
    else t.postedCredits += amount;
    into.set(p.account, t);
  }
}

function addTotals(a: BalanceTotals, b: BalanceTotals): BalanceTotals {
  return {
    postedDebits: a.postedDebits + b.postedDebits,
    postedCredits: a.postedCredits + b.postedCredits,
    pendingDebits: a.pendingDebits + b.pendingDebits,
    pendingCredits: a.pendingCredits + b.pendingCredits,
  };
}

/** The balance-row changes of a plan: its postings added, the pending legs it voids taken out. */
export function deltasOf(plan: Pick<TransactionPlan, 'postings' | 'voids'>): BalanceDelta[] {
  const deltas = new Map<string, BalanceTotals>();
  totalsDelta(plan.postings, 1n, deltas);
  if (plan.voids) totalsDelta(plan.voids.postings, -1n, deltas);
  return [...deltas].map(([account, totals]) => ({ account, totals }));
}

function mergedVoids(plans: TransactionPlan[]): TransactionPlan['voids'] {
  const voids = plans.flatMap((p) => (p.voids ? [p.voids] : []));
  return voids.length === 0 ? null : { postingIds: voids.flatMap((v) => v.postingIds), postings: voids.flatMap((v) => v.postings) };
}

function postingCount(plans: TransactionPlan[]): number {
  return plans.reduce((n, p) => n + p.postings.length, 0);
}

/** Every account a plan reads or moves. */
function accountsToLock(plans: TransactionPlan[]): string[] {
  return plans.flatMap((p) => [
    ...p.postings.map((x) => x.account),
    ...(p.voids?.postings.map((x) => x.account) ?? []),
    ...p.conditions.map((c) => c.account),
  ]);
}

/** An account the plan names, known to be in the book (unknown ones were refused first). */
function lockedAccount(book: Map<string, LockedAccount>, id: string): LockedAccount {
  const account = book.get(id);
  if (!account) throw new Error(`account ${id} was not locked`);
  return account;
}

/** The Postgres error our closed-period trigger raises. */
export function isPeriodClosedError(err: unknown): boolean {
  return err instanceof QueryFailedError && (err.driverError as { code?: string }).code === 'BK001';
}

function checkAvailable(account: LockedAccount, before: BalanceFigures, after: BalanceFigures): void {
  if (account.overdraftPolicy !== 'none' || after.available >= before.available) return;
  const floor = -account.overdraftLimit;
  if (after.available >= floor) return;
  throw insufficientFunds({
    account: account.id,
    currency: account.currency,
    available: before.available.toString(),
    available_after: after.available.toString(),
    overdraft_limit: account.overdraftLimit.toString(),
  });
}

/*
 * The refusals of the checks, one builder each, shared by the in-memory checks (BooksWriter.check)
 * and the answers of the database's write function (TransactionBatcher).
 */

export function unknownAccounts(plan: TransactionPlan, indexes: number[]) {
  const names = indexes.map((i) => plan.postings[i].account);
  return TransactionErrors.error('unknown_account', {
    message: `No account ${names.join(', ')} in this ledger`,
    param: `postings.${indexes[0]}.account`,
    details: { accounts: [...new Set(names)] },
  });
}

export function currencyMismatch(plan: TransactionPlan, i: number, accountCurrency: string) {
  const p = plan.postings[i];
  return TransactionErrors.error('currency_mismatch', {
    message: `Posting ${i} is in ${p.currency} but account ${p.account} holds ${accountCurrency}`,
    param: `postings.${i}.currency`,
    details: { account: p.account, account_currency: accountCurrency, posting_currency: p.currency },
  });
}

export function accountClosed(plan: TransactionPlan, i: number) {
  return TransactionErrors.error('account_closed', { param: `postings.${i}.account`, details: { account: plan.postings[i].account } });
}

export function preconditionFailed(plan: TransactionPlan, i: number, condition: string, actual: string | number | null) {
  const { account } = plan.conditions[i];
  return TransactionErrors.error('precondition_failed', {
    message: `Condition ${i} on account ${account} does not hold (${condition})`,
    param: `conditions.${i}`,
    details: { account, condition, actual },
  });
}

/** Figures as strings, as the error's details show them. */
export interface Shortfall {
  account: string;
  currency: string;
  available: string;
  available_after: string;
  overdraft_limit: string;
}

export function insufficientFunds(s: Shortfall) {
  return TransactionErrors.error('insufficient_funds', {
    message: `Account ${s.account} would fall to an available balance of ${s.available_after} (floor ${-BigInt(s.overdraft_limit)})`,
    hint: 'Fund the account first, or raise its overdraft_limit on a new account',
    details: { ...s },
  });
}

export function duplicateExternalRef(ref: { rail: string; kind: string; value: string }) {
  return TransactionErrors.error('duplicate_external_ref', {
    param: 'external_refs',
    details: { rail: ref.rail, kind: ref.kind, value: ref.value },
  });
}

/**
 * The write path of corrections, reserves, bulk batches and dry runs, inside their own database
 * transactions (new transactions go through TransactionBatcher and ledger_write_batch, which runs
 * the same checks in the database). Every check runs against accounts locked in id order, in
 * memory, before anything is written; the write itself is one statement. `book` is the set of
 * locked accounts, updated in place on success, so several plans can share one database
 * transaction and see each other's effects.
 */
@Injectable()
export class BooksWriter {
  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly postingIds: PostingIdPool,
  ) {}

  /** Locks what `plans` touch and takes their posting ids. */
  async lock(manager: EntityManager, scope: LedgerScope, plans: TransactionPlan[]): Promise<Book> {
    const ids = await this.postingIds.take(postingCount(plans));
    return this.transactions.lockAccounts(manager, scope, accountsToLock(plans), ids);
  }

  /** Checks `plan` against the locked `book` and returns the accounts as they would stand after it. */
  check(plan: TransactionPlan, book: Book): LockedAccount[] {
    const accounts = book.accounts;
    const unknown = plan.postings.flatMap((p, i) => (accounts.has(p.account) ? [] : [i]));
    if (unknown.length > 0) throw unknownAccounts(plan, unknown);
    plan.postings.forEach((p, i) => {
      const account = lockedAccount(accounts, p.account);
      if (p.currency !== account.currency) throw currencyMismatch(plan, i, account.currency);
      if (account.status === 'closed') throw accountClosed(plan, i);
    });
    this.checkConditions(plan, accounts);
    const after: LockedAccount[] = [];
    for (const delta of deltasOf(plan)) {
      const account = lockedAccount(accounts, delta.account);
      const next = { ...account, totals: addTotals(account.totals, delta.totals) };
      checkAvailable(account, balanceFigures(account.type, account.totals), balanceFigures(account.type, next.totals));
      after.push(next);
    }
    return after;
  }

  /**
   * Checks and writes `plan` inside the caller's database transaction, with its accounts already
   * locked in `book`. Throws KeyTaken when the idempotency key is used, coded errors otherwise;
   * the caller rolls back on any throw.
   */
  async apply(manager: EntityManager, scope: LedgerScope, plan: TransactionPlan, book: Book): Promise<WriteOutcome> {
    const touched = this.check(plan, book);
    const [written] = this.build(scope, [plan], book);
    await this.store(manager, scope, [{ plan, written }]);
    for (const account of touched) book.accounts.set(account.id, account);
    return { ...written, touched };
  }

  /** The rows `plans` (already checked) will write, with posting ids (taken in order) and time from `book`. */
  build(scope: LedgerScope, plans: TransactionPlan[], book: Pick<Book, 'postingIds' | 'now'>): WrittenTransaction[] {
    const now = book.now;
    return plans.map((plan) => {
      const id = randomUUID();
      const transaction: TransactionEntity = {
        id,
        ledgerId: scope.ledgerId,
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
      };
      const postings = plan.postings.map((p): PostingEntity => {
        const postingId = book.postingIds.shift();
        if (postingId === undefined) throw new Error('more postings than the lock reserved');
        return {
          id: postingId,
          ledgerId: scope.ledgerId,
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
        };
      });
      const refs = plan.externalRefs.map((r) => ({
        id: randomUUID(),
        transactionId: id,
        rail: r.rail,
        refKind: r.kind,
        value: r.value,
        metadata: r.metadata,
        createdAt: now,
      }));
      return { transaction, postings, refs };
    });
  }

  /**
   * Writes built transactions (checked one after another against the book, which holds their
   * effects) in one statement. All or nothing: a used idempotency key throws KeyTaken, a taken
   * external ref `duplicate_external_ref`, a closed period `period_closed`; after any throw the
   * caller must roll back.
   */
  async store(manager: EntityManager, scope: LedgerScope, entries: { plan: TransactionPlan; written: WrittenTransaction }[]): Promise<void> {
    const plans = entries.map((e) => e.plan);
    const rows: WriteRows = {
      transactions: entries.map((e) => e.written.transaction),
      postings: entries.flatMap((e) => e.written.postings),
      refs: entries.flatMap((e) => e.written.refs),
      voids: plans.flatMap((p) => p.voids?.postingIds ?? []),
      deltas: deltasOf({ postings: plans.flatMap((p) => p.postings), voids: mergedVoids(plans) }),
      now: entries[0].written.transaction.createdAt,
    };
    let stored;
    try {
      stored = await this.transactions.write(manager, scope, rows);
    } catch (err) {
      if (isPeriodClosedError(err)) throw periodClosed(plans.length === 1 ? plans[0].valueDate : undefined);
      throw err;
    }
    for (const { plan, written } of entries) {
      if (!stored.transactions.has(written.transaction.id)) throw new KeyTaken(plan.idempotencyKey ?? '');
      const taken = written.refs.find((r) => !stored.refs.has(r.id));
      if (taken) throw duplicateExternalRef({ rail: taken.rail, kind: taken.refKind, value: taken.value });
    }
  }

  private checkConditions(plan: TransactionPlan, book: Map<string, LockedAccount>): void {
    plan.conditions.forEach((c, i) => {
      const account = book.get(c.account);
      if (!account) throw preconditionFailed(plan, i, 'account exists', null);
      const available = balanceFigures(account.type, account.totals).available;
      if (c.lockVersion !== undefined && c.lockVersion !== account.lockVersion) throw preconditionFailed(plan, i, 'lock_version', account.lockVersion);
      if (c.minAvailable !== undefined && available < c.minAvailable) throw preconditionFailed(plan, i, 'min_available_balance', available.toString());
      if (c.maxAvailable !== undefined && available > c.maxAvailable) throw preconditionFailed(plan, i, 'max_available_balance', available.toString());
    });
  }
}

export function periodClosed(valueDate?: Date) {
  return TransactionErrors.error('period_closed', {
    message: `value_date ${valueDate?.toISOString() ?? ''} falls inside a closed period`.replace('  ', ' '),
    param: 'value_date',
    hint: 'Date the transaction after the closed period, or reopen the period first',
  });
}
