import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@bursar/errors';
import { currentTraceContext } from '@bursar/service-kit';
import { isUUID } from 'class-validator';
import { Brackets, DataSource, EntityManager } from 'typeorm';
import { normalizeCurrency } from '../accounts/currencies';
import { presentBalance } from '../balances/balance.presenter';
import { AccountState } from '../books/account-state';
import { balanceFigures } from '../books/balance-figures';
import { KeyTaken } from '../books/book-refusals';
import { NewEvent, WriteOutcome } from '../books/engine-batch';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { Pagination } from '../common/pagination';
import { EventsService } from '../events/events.service';
import { IdempotencyService, PendingKey } from '../idempotency/idempotency.service';
import { CompactAccount } from '../postings/posting.presenter';
import { BooksEngine, commitEntry, isRaced, RACE_RETRIES } from './books-engine';
import { CreateTransactionDto, TransactionBodyDto } from './dto/create-transaction.dto';
import { ListTransactionsQuery } from './dto/transaction-queries';
import { IMMUTABLE_TRANSACTION_FIELDS, metadataAsStrings, UpdateTransactionDto } from './dto/update-transaction.dto';
import { Expandable } from './expand';
import { assertBalanced, plannedPostings, totalsByCurrency, TransactionPlan } from '../books/transaction-plan';
import { TransactionBatcher } from './transaction-batcher';
import { TransactionErrors } from './transaction-errors';
import { presentTransaction, PresentedTransaction } from './transaction.presenter';
import { TransactionEntity } from './transaction.entity';
import { TransactionsRepository } from './transactions.repository';

const ORDER = {
  list: 'transactions',
  sortColumn: 't.created_at',
  sortType: 'timestamptz',
  idColumn: 't.id',
  idType: 'uuid',
  direction: 'DESC',
} as const;

/** What a plan is made from: a create body, or a bulk item (no refs or conditions). */
type PlannableBody = TransactionBodyDto & Partial<Pick<CreateTransactionDto, 'external_refs' | 'conditions'>>;

/** What a single write records besides its rows: events written with them, and work after the write in its transaction. */
export interface WriteRecords {
  inWrite?: (outcome: WriteOutcome, presented: PresentedTransaction) => NewEvent[];
  after?: (manager: EntityManager, outcome: WriteOutcome, presented: PresentedTransaction) => Promise<unknown>;
}

/** A write's answer, and whether it replays an earlier one (same key). */
export interface WriteResult {
  transaction: PresentedTransaction;
  replayed: boolean;
}

export function compactAccount(a: AccountState): CompactAccount {
  return { object: 'account', id: a.id, type: a.type, currency: a.currency };
}

function balancesOf(accounts: AccountState[]) {
  return accounts.map((a) => presentBalance(a.id, a.currency, balanceFigures(a.type, a.totals)));
}

@Injectable()
export class TransactionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: TransactionsRepository,
    private readonly engine: BooksEngine,
    private readonly batcher: TransactionBatcher,
    private readonly events: EventsService,
    private readonly pagination: Pagination,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** Normalizes a request into a plan; 422 `unbalanced` before any database work. */
  planOf(body: PlannableBody, key: string | null): TransactionPlan {
    const postings = plannedPostings(body.postings);
    assertBalanced(postings);
    return {
      idempotencyKey: key,
      kind: 'standard',
      reverses: null,
      refund: null,
      metadata: body.metadata ?? {},
      valueDate: body.value_date ? new Date(body.value_date) : new Date(),
      postings,
      externalRefs: (body.external_refs ?? []).map((r) => ({ rail: r.rail, kind: r.kind, value: r.value, metadata: r.metadata ?? {} })),
      conditions: (body.conditions ?? []).map((c) => ({
        account: c.account,
        lockVersion: c.lock_version,
        minAvailable: c.min_available_balance === undefined ? undefined : BigInt(c.min_available_balance),
        maxAvailable: c.max_available_balance === undefined ? undefined : BigInt(c.max_available_balance),
      })),
      voids: null,
    };
  }

  /**
   * Writes one plan (or the plan `planned` builds inside the transaction) in its own database
   * transaction, with `records.inWrite` (events the engine writes with the rows, built from the
   * outcome before it is sent) and then `records.after` (work in the same transaction, after the
   * write). When the idempotency key already names a transaction, answers that one as a replay.
   */
  async writeOne(
    scope: LedgerScope,
    planned: TransactionPlan | ((manager: EntityManager) => Promise<TransactionPlan>),
    expand: Set<Expandable>,
    records: WriteRecords,
  ): Promise<WriteResult> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.dataSource.transaction(async (manager) => {
          const plan = typeof planned === 'function' ? await planned(manager) : planned;
          // The outcome is presented once, for the events and the answer.
          const presented = rememberLast(presentOutcome);
          const { outcome, entry } = await this.engine.entry(scope, plan, (built) => ({
            events: records.inWrite?.(built, presented(built)) ?? [],
            trace_context: currentTraceContext(),
            idem: null,
            touched: true,
          }));
          const [verdict] = await this.engine.call(manager, scope, [entry]);
          if (!verdict.ok) throw verdict.error;
          outcome.touched = verdict.touched;
          await records.after?.(manager, outcome, presented(outcome));
          return { transaction: this.expandWritten(presented(outcome), outcome, expand), replayed: false };
        });
      } catch (err) {
        // Met a key or ref a write in flight took: the whole transaction again sees it.
        if (isRaced(err) && tries < RACE_RETRIES) continue;
        return this.replayOrThrow(scope, err, expand);
      }
    }
  }

  /**
   * A new transaction, written through the group-commit batcher. With `pending` (a request's
   * idempotency key) the key is stored in the same database transaction, holding the response.
   */
  async create(
    scope: LedgerScope,
    body: PlannableBody,
    key: string | null,
    expand: Set<Expandable>,
    pending: PendingKey | null = null,
  ): Promise<WriteResult> {
    const plan = this.planOf(body, key);
    // A written outcome is presented once for its event, its stored answer and the response.
    const presented = rememberLast(presentOutcome);
    const respond = rememberLast((outcome: WriteOutcome) => this.expandWritten(presented(outcome), outcome, expand));
    try {
      // Expansions show the accounts as the write leaves them.
      const expanded = expand.size > 0;
      const outcome = await this.batcher.submit(
        scope,
        plan,
        (written) => [{ type: 'transaction.created', resourceId: written.transaction.id, data: presented(written) }],
        pending && { pending, respond, answersAfterWrite: expanded },
        expanded,
      );
      return { transaction: respond(outcome), replayed: false };
    } catch (err) {
      const answer = err instanceof KeyTaken && pending ? await this.idempotency.answerTaken(pending) : null;
      if (answer?.kind === 'replay') return { transaction: answer.body as PresentedTransaction, replayed: true };
      return this.replayOrThrow(scope, err, expand);
    }
  }

  /** When the idempotency key already names a transaction, that one is the answer (a replay). */
  private async replayOrThrow(scope: LedgerScope, err: unknown, expand: Set<Expandable>): Promise<WriteResult> {
    if (!(err instanceof KeyTaken)) throw err;
    const existing = await this.transactions.findByKey(scope, err.key);
    if (!existing) throw err;
    return { transaction: (await this.present(scope, [existing], expand))[0], replayed: true };
  }

  /** The engine's judgement of the write, made exactly as the write would be, with nothing written. */
  async dryRun(scope: LedgerScope, body: CreateTransactionDto) {
    const totals = (plan: TransactionPlan) =>
      Object.fromEntries([...totalsByCurrency(plan.postings)].map(([c, t]) => [c, { debit: t.debit.toString(), credit: t.credit.toString() }]));
    // The reference lists the touched account ids in `accounts`; their would-be balances go beside them.
    const summary = (accounts: AccountState[], plan: TransactionPlan | null) => ({
      accounts: accounts.map((a) => a.id),
      balances: balancesOf(accounts),
      totals: plan ? totals(plan) : {},
    });
    let plan: TransactionPlan | null = null;
    try {
      plan = this.planOf(body, null);
      const { entry } = await this.engine.entry(scope, plan);
      const [verdict] = await this.engine.run(scope, [entry], { dryRun: true });
      if (verdict.ok) return { object: 'dry_run' as const, valid: true, summary: summary(verdict.touched, plan) };
      throw verdict.error;
    } catch (err) {
      if (!(err instanceof ApiError) || err.code === null) throw err;
      return {
        object: 'dry_run' as const,
        valid: false,
        error: { code: err.code, message: err.message, ...err.extras, headers: undefined, fields: undefined },
        summary: summary([], plan),
      };
    }
  }

  async get(scope: LedgerScope, id: string, expand: Set<Expandable>): Promise<PresentedTransaction> {
    return (await this.present(scope, [await this.find(scope, id)], expand))[0];
  }

  async find(scope: LedgerScope, id: string, manager?: EntityManager): Promise<TransactionEntity> {
    const found = isUUID(id) ? await this.transactions.findById(scope, id, manager) : null;
    if (!found) throw LedgerErrors.error('not_found', { message: `No transaction ${id}` });
    return found;
  }

  async lookup(scope: LedgerScope, ref: { rail: string; kind: string; value: string }, expand: Set<Expandable>) {
    const found = await this.transactions.findByExternalRef(scope, ref);
    if (!found) throw LedgerErrors.error('not_found', { message: 'No transaction carries this external reference' });
    return (await this.present(scope, [found], expand))[0];
  }

  async list(scope: LedgerScope, q: ListTransactionsQuery, expand: Set<Expandable>): Promise<ListPage<PresentedTransaction>> {
    const qb = this.transactions.listQuery(scope);
    const posting = (condition: string, params: Record<string, unknown>) =>
      qb.andWhere(`EXISTS (SELECT 1 FROM postings fp WHERE fp.transaction_id = t.id AND ${condition})`, params);
    const reversal = `EXISTS (SELECT 1 FROM transactions r WHERE r.reverses = t.id AND r.kind = 'reversal')`;
    if (q.metadata) qb.andWhere('t.metadata @> :meta', { meta: JSON.stringify(q.metadata) });
    if (q.account) posting('fp.account_id = :account', { account: q.account });
    if (q.currency) posting('fp.currency = :currency', { currency: normalizeCurrency(q.currency) });
    if (q.amount_gte) posting('fp.amount >= CAST(:gte AS numeric)', { gte: q.amount_gte });
    if (q.amount_lte) posting('fp.amount <= CAST(:lte AS numeric)', { lte: q.amount_lte });
    if (q.value_date_from) qb.andWhere('t.value_date >= :from', { from: q.value_date_from });
    if (q.value_date_to) qb.andWhere('t.value_date < :to', { to: q.value_date_to });
    if (q.reversed) qb.andWhere(q.reversed === 'true' ? reversal : `NOT ${reversal}`);
    const openPending = `EXISTS (SELECT 1 FROM postings sp WHERE sp.transaction_id = t.id AND sp.pending AND sp.voided_at IS NULL)`;
    if (q.status === 'archived') qb.andWhere(reversal);
    if (q.status === 'pending') qb.andWhere(`NOT ${reversal}`).andWhere(openPending);
    if (q.status === 'posted') qb.andWhere(`NOT ${reversal}`).andWhere(`NOT ${openPending}`);
    if (q.ref_rail || q.ref_kind || q.ref_value) {
      qb.andWhere(
        new Brackets((w) =>
          w.where(
            `EXISTS (SELECT 1 FROM transaction_external_refs er WHERE er.transaction_id = t.id
               AND (CAST(:rail AS text) IS NULL OR er.rail = :rail) AND (CAST(:rkind AS text) IS NULL OR er.ref_kind = :rkind)
               AND (CAST(:rvalue AS text) IS NULL OR er.value = :rvalue))`,
            { rail: q.ref_rail ?? null, rkind: q.ref_kind ?? null, rvalue: q.ref_value ?? null },
          ),
        ),
      );
    }
    const page = await this.pagination.page(qb, ORDER, scope, q, (t) => t);
    const presented = await this.present(scope, page.data, expand);
    return new ListPage(presented, page.hasMore, page.nextCursor, page.total);
  }

  /** Only metadata changes; merge (default) or replace. Emits transaction.updated. */
  async update(scope: LedgerScope, id: string, body: UpdateTransactionDto): Promise<PresentedTransaction> {
    const fixed = IMMUTABLE_TRANSACTION_FIELDS.find((f) => body[f] !== undefined);
    // The event's wire form is also the answer: no second read after commit.
    return this.dataSource.transaction(async (manager) => {
      const current = isUUID(id) ? await this.transactions.lockTransaction(manager, scope, id) : null;
      if (!current) throw LedgerErrors.error('not_found', { message: `No transaction ${id}` });
      if (fixed) {
        throw LedgerErrors.error('immutable_field', {
          param: fixed,
          message: `${fixed} cannot change after creation; only metadata can`,
          hint: `Correct the money with POST /v1/transactions/${id}/reverse`,
        });
      }
      if (body.metadata === undefined) return (await this.present(scope, [current], new Set(), manager))[0];
      const patch = metadataAsStrings(body.metadata);
      const metadata = body.merge === false ? patch : { ...current.metadata, ...patch };
      await this.transactions.updateMetadata(scope, id, metadata, manager);
      const after = await this.find(scope, id, manager);
      const [presented] = await this.present(scope, [after], new Set(), manager);
      await this.events.record(manager, scope, 'transaction.updated', id, presented);
      return presented;
    });
  }

  /** Pending legs become posted; already posted answers unchanged; reversed is 409 invalid_state. */
  async commit(scope: LedgerScope, id: string, expand: Set<Expandable>): Promise<PresentedTransaction> {
    const committed = await this.dataSource.transaction(async (manager) => {
      const current = isUUID(id) ? await this.transactions.lockTransaction(manager, scope, id) : null;
      if (!current) throw LedgerErrors.error('not_found', { message: `No transaction ${id}` });
      if ((await this.transactions.reversalsOf(scope, [id], manager)).size > 0) {
        throw TransactionErrors.error('invalid_state', { message: 'A reversed transaction cannot be committed' });
      }
      const open = (await this.transactions.postingsOf(scope, [id], manager)).filter((p) => p.pending && !p.voidedAt);
      if (open.length === 0) return current;
      // The engine posts each open leg and releases it from pending, judged like any other change.
      const [verdict] = await this.engine.call(manager, scope, [commitEntry(current, open)]);
      if (!verdict.ok) throw verdict.error;
      const after = await this.find(scope, id, manager);
      const [presented] = await this.present(scope, [after], new Set(), manager);
      await this.events.record(manager, scope, 'transaction.committed', id, presented);
      return after;
    });
    return (await this.present(scope, [committed], expand))[0];
  }

  /** Wire forms of `transactions` with postings, refs, reversal links and requested expansions. */
  async present(
    scope: LedgerScope,
    transactions: TransactionEntity[],
    expand: Set<Expandable>,
    manager?: EntityManager,
  ): Promise<PresentedTransaction[]> {
    const ids = transactions.map((t) => t.id);
    const reads = [
      () => this.transactions.postingsOf(scope, ids, manager),
      () => this.transactions.refsOf(scope, ids, manager),
      () => this.transactions.reversalsOf(scope, ids, manager),
      () => this.transactions.logIndexesOf(scope, ids, manager),
    ] as const;
    // One connection (a transaction's) runs one query at a time; the pool runs them in parallel.
    const [postings, refs, reversals, logIndexes] = manager
      ? [await reads[0](), await reads[1](), await reads[2](), await reads[3]()]
      : await Promise.all([reads[0](), reads[1](), reads[2](), reads[3]()]);
    const accountIds = [...new Set(postings.map((p) => p.accountId))];
    const accounts = expand.size > 0 ? await this.transactions.readAccounts(scope, accountIds) : new Map<string, AccountState>();
    return transactions.map((t) => {
      const own = postings.filter((p) => p.transactionId === t.id);
      const touched = [...new Set(own.map((p) => p.accountId))].map((a) => accounts.get(a)).filter((a): a is AccountState => !!a);
      return presentTransaction({
        transaction: t,
        postings: own,
        refs: refs.filter((r) => r.transactionId === t.id),
        reversedBy: reversals.get(t.id) ?? null,
        logIndex: logIndexes.get(t.id) ?? null,
        ...(expand.has('postings.account') && { accounts: new Map(touched.map((a) => [a.id, compactAccount(a)])) }),
        ...(expand.has('balances') && { balances: balancesOf(touched) }),
      });
    });
  }

  /** Expansions of a fresh write come from the write itself: the balances as it committed them. */
  private expandWritten(presented: PresentedTransaction, outcome: WriteOutcome, expand: Set<Expandable>): PresentedTransaction {
    if (expand.size === 0) return presented;
    const accounts = new Map(outcome.touched.map((a) => [a.id, compactAccount(a)]));
    return presentTransaction({
      ...viewOf(outcome),
      ...(expand.has('postings.account') && { accounts }),
      ...(expand.has('balances') && { balances: balancesOf(outcome.touched) }),
    });
  }
}

/** `f` remembering its answer for the last argument it was given (by identity). */
function rememberLast<A extends object, R>(f: (a: A) => R): (a: A) => R {
  let last: { arg: A; answer: R } | undefined;
  return (arg) => {
    if (last?.arg !== arg) last = { arg, answer: f(arg) };
    return last.answer;
  };
}

/** A fresh write's view: no reversal can exist yet. */
function viewOf(outcome: WriteOutcome) {
  return { transaction: outcome.transaction, postings: outcome.postings, refs: outcome.refs, reversedBy: null };
}

export function presentOutcome(outcome: WriteOutcome): PresentedTransaction {
  return presentTransaction(viewOf(outcome));
}
