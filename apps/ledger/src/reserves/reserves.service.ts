import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError } from '@bursar/errors';
import { EntityManager } from 'typeorm';
import { normalSide } from '../accounts/account-kinds';
import { AccountEntity } from '../accounts/account.entity';
import { AccountsService } from '../accounts/accounts.service';
import { NewAccount } from '../accounts/accounts.repository';
import { normalizeCurrency } from '../accounts/currencies';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { EventsService } from '../events/events.service';
import { PlannedPosting, TransactionPlan } from '../books/transaction-plan';
import { TransactionErrors } from '../transactions/transaction-errors';
import { TransactionsService } from '../transactions/transactions.service';
import { ClawReserveDto, ReleaseReserveDto } from './dto/release-reserve.dto';
import { CreateReserveDto } from './dto/create-reserve.dto';
import { presentReserveOp, ReserveOpResult } from './reserve.presenter';
import { ReserveErrors } from './reserve-errors';
import { ReservesRepository } from './reserves.repository';

type Side = Pick<AccountEntity, 'id' | 'type' | 'currency'>;

/** One reserve operation: `amount` leaves `from` and lands on `to`, one of them being the reserve. */
interface ReserveMove {
  reserve: string;
  from: Side;
  to: Side;
  amount: bigint;
  metadata: Record<string, unknown>;
  event: 'reserve.swept' | 'reserve.released' | 'reserve.clawed';
  payload: Record<string, unknown>;
  /** The error when `from` cannot cover the amount, given its available balance. */
  shortfall: (available: string) => ApiError;
  /** Work inside the write's transaction before the accounts are locked (creating the reserve account). */
  before?: (manager: EntityManager) => Promise<unknown>;
}

/**
 * The reserve account of (template, counterparty_ref, currency): the same triple always names the
 * same id, so concurrent first reserves meet on one primary key instead of making two accounts.
 */
export function reserveAccountId(template: string, counterpartyRef: string, currency: string): string {
  return `reserve:${createHash('sha256').update(JSON.stringify([template, counterpartyRef, currency])).digest('hex').slice(0, 32)}`;
}

function invalid(param: string, message: string): never {
  throw LedgerErrors.error('invalid_request', { param, message, details: { fields: { [param]: [message] } } });
}

/**
 * Funds move only between accounts read positive on the same side (say, two liabilities): one
 * leg lowers `from`, the other raises `to`. Across sides the two legs could not balance.
 */
function assertSameSide(from: Side, to: Side, param: string): void {
  if (normalSide(from.type) !== normalSide(to.type)) {
    invalid(param, `funds cannot move from a ${from.type} account (${from.id}) to a ${to.type} account (${to.id})`);
  }
}

function legs(from: Side, to: Side, amount: bigint): PlannedPosting[] {
  const out = normalSide(from.type) === 'debit' ? 'credit' : 'debit';
  const leg = (account: string, direction: 'debit' | 'credit'): PlannedPosting => ({
    account,
    amount,
    currency: from.currency,
    direction,
    pending: false,
    tags: {},
  });
  return [leg(from.id, out), leg(to.id, out === 'debit' ? 'credit' : 'debit')];
}

/**
 * Reserves hold funds for a counterparty in a restricted account. Every operation is one balanced
 * transaction written through the books' write path (locks, closed periods, events), with a
 * condition that the account the funds leave has at least `amount` available, so a reserve never
 * takes an account below zero whatever its overdraft policy, and a release never takes more than
 * the reserve holds.
 */
@Injectable()
export class ReservesService {
  constructor(
    private readonly reserves: ReservesRepository,
    private readonly accounts: AccountsService,
    private readonly transactions: TransactionsService,
    private readonly events: EventsService,
  ) {}

  async create(scope: LedgerScope, body: CreateReserveDto): Promise<ReserveOpResult> {
    const currency = normalizeCurrency(body.currency);
    const source = await this.counterpart(scope, body.source_account_id, 'source_account_id');
    if (source.currency !== currency) {
      throw ReserveErrors.error('reserve_currency_mismatch', {
        param: 'currency',
        message: `Source account ${source.id} holds ${source.currency}, not ${currency}`,
        details: { source_account_id: source.id, account_currency: source.currency, currency },
      });
    }
    const id = reserveAccountId(body.template, body.counterparty_ref, currency);
    if (source.id === id) invalid('source_account_id', 'a reserve cannot be funded from itself');
    const account: NewAccount = await this.accounts.prepare(scope, {
      id,
      name: `Reserve ${body.template} for ${body.counterparty_ref} (${currency})`,
      currency,
      template: body.template,
      account_kind: 'restricted',
      counterparty_ref: body.counterparty_ref,
    });
    assertSameSide(source, account, 'template');
    const amount = BigInt(body.amount);
    return this.move(scope, {
      reserve: id,
      from: source,
      to: account,
      amount,
      metadata: {
        ...body.metadata,
        _reserve_op: 'sweep',
        _reserve_account: id,
        ...(body.expires_at !== undefined && { expires_at: body.expires_at }),
      },
      event: 'reserve.swept',
      payload: {
        source_account_id: source.id,
        template: body.template,
        counterparty_ref: body.counterparty_ref,
        currency,
        amount: amount.toString(),
        expires_at: body.expires_at ?? null,
      },
      shortfall: (available) =>
        ReserveErrors.error('reserve_insufficient_funds', {
          param: 'amount',
          message: `Account ${source.id} has ${available} ${currency} available, less than ${amount}`,
          details: { source_account_id: source.id, currency, available, amount: amount.toString() },
        }),
      // Taken (by an earlier reserve, or a concurrent one that committed first) means reuse it.
      before: (manager) => this.accounts.insert(manager, scope, account),
    });
  }

  async release(scope: LedgerScope, id: string, body: ReleaseReserveDto): Promise<ReserveOpResult> {
    const reserve = await this.reserve(scope, id);
    const target = await this.counterpart(scope, body.target_account_id, 'target_account_id');
    return this.takeOut(scope, reserve, target, 'target_account_id', BigInt(body.amount), body.metadata, 'reserve.released', {});
  }

  async claw(scope: LedgerScope, id: string, body: ClawReserveDto): Promise<ReserveOpResult> {
    const reserve = await this.reserve(scope, id);
    const operator = await this.counterpart(scope, body.operator_account_id, 'operator_account_id');
    return this.takeOut(scope, reserve, operator, 'operator_account_id', BigInt(body.amount), body.metadata, 'reserve.clawed', {
      reason_code: body.reason_code,
    });
  }

  /** Release and claw: `amount` leaves the reserve for `to`. */
  private takeOut(
    scope: LedgerScope,
    reserve: AccountEntity,
    to: AccountEntity,
    param: string,
    amount: bigint,
    metadata: Record<string, unknown> | undefined,
    event: 'reserve.released' | 'reserve.clawed',
    extra: Record<string, string>,
  ): Promise<ReserveOpResult> {
    if (to.currency !== reserve.currency) {
      throw ReserveErrors.error('reserve_currency_mismatch', {
        param,
        message: `Account ${to.id} holds ${to.currency}; the reserve holds ${reserve.currency}`,
        details: { [param]: to.id, account_currency: to.currency, reserve_currency: reserve.currency },
      });
    }
    if (to.id === reserve.id) invalid(param, 'a reserve cannot be released into itself');
    assertSameSide(reserve, to, param);
    return this.move(scope, {
      reserve: reserve.id,
      from: reserve,
      to,
      amount,
      metadata: { ...metadata, _reserve_op: event.slice('reserve.'.length), _reserve_account: reserve.id, ...extra },
      event,
      payload: { [param]: to.id, counterparty_ref: reserve.counterpartyRef, currency: reserve.currency, amount: amount.toString(), ...extra },
      shortfall: (available) =>
        ReserveErrors.error('reserve_release_exceeds_balance', {
          param: 'amount',
          message: `Reserve ${reserve.id} has ${available} ${reserve.currency} available, less than ${amount}`,
          details: { reserve_account_id: reserve.id, currency: reserve.currency, available, amount: amount.toString() },
        }),
    });
  }

  private async move(scope: LedgerScope, m: ReserveMove): Promise<ReserveOpResult> {
    let result: ReserveOpResult | null = null;
    const plan: TransactionPlan = {
      idempotencyKey: null,
      kind: 'standard',
      reverses: null,
      refund: null,
      metadata: m.metadata,
      valueDate: new Date(),
      postings: legs(m.from, m.to, m.amount),
      externalRefs: [],
      // Checked against the locked balance, before anything is written.
      conditions: [{ account: m.from.id, minAvailable: m.amount }],
      voids: null,
    };
    try {
      await this.transactions.writeOne(
        scope,
        async (manager) => {
          await m.before?.(manager);
          return plan;
        },
        new Set(),
        {
          after: async (manager, outcome, presented) => {
            result = presentReserveOp(outcome, m.reserve, m.from.id);
            await this.events.record(manager, scope, 'transaction.created', outcome.transaction.id, presented);
            await this.events.record(manager, scope, m.event, m.reserve, { ...result, ...m.payload });
          },
        },
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 'precondition_failed') {
        throw m.shortfall(String((err.extras.details as { actual?: unknown } | undefined)?.actual ?? ''));
      }
      throw err;
    }
    if (!result) throw new Error('reserve write finished without an outcome');
    return result;
  }

  private async reserve(scope: LedgerScope, id: string): Promise<AccountEntity> {
    const reserve = await this.reserves.findReserve(scope, id);
    if (!reserve) throw LedgerErrors.error('not_found', { message: `No reserve account ${id}` });
    return reserve;
  }

  /** An account the request names in a body field; 422 unknown_account when absent. */
  private async counterpart(scope: LedgerScope, id: string, param: string): Promise<AccountEntity> {
    const account = await this.accounts.find(scope, id);
    if (!account) throw TransactionErrors.error('unknown_account', { param, message: `No account ${id} in this ledger`, details: { accounts: [id] } });
    return account;
  }
}
