import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { EntityManager } from 'typeorm';
import { normalizeCurrency } from '../accounts/currencies';
import { addTo, mapToStrings } from '../balances/money';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { EventsService } from '../events/events.service';
import { PostingEntity } from '../postings/posting.entity';
import { CorrectionDto } from './dto/correction.dto';
import { Expandable } from './expand';
import { flipped, legKey, legTotals, PlannedPosting, plannedOf, TransactionPlan } from '../books/transaction-plan';
import { TransactionErrors } from './transaction-errors';
import { TransactionEntity } from './transaction.entity';
import { TransactionsRepository } from './transactions.repository';
import { TransactionsService, WriteResult } from './transactions.service';

const postedLegs = (postings: PostingEntity[]) => postings.filter((p) => !p.pending && !p.voidedAt).map(plannedOf);

/** n * num / den rounded half to even (banker's rounding). */
function scaleHalfEven(n: bigint, num: bigint, den: bigint): bigint {
  const q = (n * num) / den;
  const twice = 2n * ((n * num) % den);
  return twice > den || (twice === den && q % 2n === 1n) ? q + 1n : q;
}

/** Debit totals per currency: the gross of a balanced set of legs. */
function grossByCurrency(legs: PlannedPosting[]): Map<string, bigint> {
  const gross = new Map<string, bigint>();
  for (const leg of legs) if (leg.direction === 'debit') addTo(gross, leg.currency, leg.amount);
  return gross;
}

/**
 * Legs of `legs` in one currency scaled so each side sums to `target`: each leg by the common
 * ratio, half-even, with the rounding residual put on the largest leg of its side.
 */
function scaledSide(legs: PlannedPosting[], ratio: [bigint, bigint], target: bigint): PlannedPosting[] {
  if (legs.length === 0) return [];
  const scaled = legs.map((l) => ({ ...l, amount: scaleHalfEven(l.amount, ratio[0], ratio[1]) }));
  const largest = legs.reduce((best, l, i) => (l.amount > legs[best].amount ? i : best), 0);
  scaled[largest].amount += target - scaled.reduce((sum, l) => sum + l.amount, 0n);
  return scaled;
}

/**
 * Reversals (the whole remaining amount, pending legs voided) and refunds (part of the gross in
 * one currency, every leg scaled alike). Both lock the original first, so concurrent corrections
 * of one transaction see each other.
 */
@Injectable()
export class CorrectionsService {
  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly service: TransactionsService,
    private readonly events: EventsService,
  ) {}

  /** With `amount` (our contract's partial reverse) this is a refund. */
  reverse(scope: LedgerScope, id: string, body: CorrectionDto, key: string | null, expand: Set<Expandable>): Promise<WriteResult> {
    if (body.amount !== undefined) return this.refund(scope, id, body, key, expand);
    let original: TransactionEntity;
    return this.service.writeOne(
      scope,
      async (manager) => {
        original = await this.lockOriginal(manager, scope, id);
        return this.reversalPlan(manager, scope, original, body, key);
      },
      expand,
      async (manager, outcome, presented) => {
        await this.events.record(manager, scope, 'transaction.reversal_created', outcome.transaction.id, presented);
        const [reversed] = await this.service.present(scope, [original], new Set(), manager);
        await this.events.record(manager, scope, 'transaction.reversed', original.id, reversed);
      },
    );
  }

  refund(scope: LedgerScope, id: string, body: CorrectionDto, key: string | null, expand: Set<Expandable>): Promise<WriteResult> {
    if (body.amount == null) {
      throw LedgerErrors.error('invalid_request', { message: 'amount is required', param: 'amount', details: { fields: { amount: ['required'] } } });
    }
    const amount = BigInt(body.amount);
    return this.service.writeOne(
      scope,
      async (manager) => this.refundPlan(manager, scope, await this.lockOriginal(manager, scope, id), amount, body, key),
      expand,
      (manager, outcome, presented) => this.events.record(manager, scope, 'transaction.refund_created', outcome.transaction.id, presented),
    );
  }

  async refunds(scope: LedgerScope, id: string, expand: Set<Expandable>) {
    await this.service.find(scope, id);
    return this.service.present(scope, await this.transactions.refundsOf(scope, id), expand);
  }

  private async lockOriginal(manager: EntityManager, scope: LedgerScope, id: string): Promise<TransactionEntity> {
    const original = isUUID(id) ? await this.transactions.lockTransaction(manager, scope, id) : null;
    if (!original) throw LedgerErrors.error('not_found', { message: `No transaction ${id}` });
    const reversedBy = (await this.transactions.reversalsOf(scope, [id], manager)).get(id);
    if (reversedBy) {
      throw TransactionErrors.error('already_reversed', { details: { reversed_by: reversedBy }, hint: 'A transaction is reversed at most once' });
    }
    return original;
  }

  /** Flips what is left of every posted leg after refunds, and voids open pending legs. */
  private async reversalPlan(
    manager: EntityManager,
    scope: LedgerScope,
    original: TransactionEntity,
    body: CorrectionDto,
    key: string | null,
  ): Promise<TransactionPlan> {
    const postings = await this.transactions.postingsOf(scope, [original.id], manager);
    const remaining = legTotals(postedLegs(postings));
    const refunds = await this.transactions.refundsOf(scope, original.id, manager);
    const refunded = await this.transactions.postingsOf(scope, refunds.map((r) => r.id), manager);
    for (const leg of flipped(postedLegs(refunded))) addTo(remaining, legKey(leg), -leg.amount);
    const legs = postedLegs(postings)
      .filter((leg, i, all) => all.findIndex((o) => legKey(o) === legKey(leg)) === i)
      .map((leg) => ({ ...leg, tags: {}, amount: remaining.get(legKey(leg)) ?? 0n }))
      .filter((leg) => leg.amount > 0n);
    const openPending = postings.filter((p) => p.pending && !p.voidedAt);
    // A reversal of something dated in a closed period is dated now, keeping the original date.
    const closed = await this.transactions.inClosedPeriod(manager, scope, original.valueDate);
    return {
      idempotencyKey: key,
      kind: 'reversal',
      reverses: original.id,
      refund: null,
      metadata: { ...body.metadata, ...(closed && { _reverses_value_date: original.valueDate.toISOString() }) },
      valueDate: closed ? new Date() : original.valueDate,
      postings: flipped(legs),
      externalRefs: [],
      conditions: [],
      voids: { postingIds: openPending.map((p) => p.id), postings: openPending.map(plannedOf) },
    };
  }

  private async refundPlan(
    manager: EntityManager,
    scope: LedgerScope,
    original: TransactionEntity,
    amount: bigint,
    body: CorrectionDto,
    key: string | null,
  ): Promise<TransactionPlan> {
    const legs = postedLegs(await this.transactions.postingsOf(scope, [original.id], manager));
    const gross = grossByCurrency(legs);
    const currency = body.currency === undefined ? undefined : normalizeCurrency(body.currency);
    if (currency === undefined && gross.size > 1) {
      throw TransactionErrors.error('refund_currency_required', { param: 'currency', details: { currencies: [...gross.keys()] } });
    }
    const refundCurrency = currency ?? [...gross.keys()][0];
    if (refundCurrency === undefined || !gross.has(refundCurrency)) {
      throw LedgerErrors.error('invalid_request', {
        message: `The original has no posted ${refundCurrency ?? ''} legs to refund`.replace('  ', ' '),
        param: 'currency',
      });
    }
    const refunds = await this.transactions.refundsOf(scope, original.id, manager);
    const refunded = grossByCurrency(postedLegs(await this.transactions.postingsOf(scope, refunds.map((r) => r.id), manager)));
    const remaining = new Map([...gross].map(([c, g]) => [c, g - (refunded.get(c) ?? 0n)] as const));
    const left = remaining.get(refundCurrency) ?? 0n;
    if (amount > left) {
      throw TransactionErrors.error('partial_refund_exceeds_original', {
        param: 'amount',
        details: { remaining_by_currency: mapToStrings(remaining), currency: refundCurrency, requested: amount.toString() },
      });
    }
    const ratio: [bigint, bigint] = [amount, gross.get(refundCurrency) ?? 1n];
    // The last refund takes exactly what is left, so rounding never leaves dust behind.
    const finishing = amount === left;
    const postings: PlannedPosting[] = [];
    for (const [c, g] of gross) {
      const target = finishing ? (remaining.get(c) ?? 0n) : c === refundCurrency ? amount : scaleHalfEven(g, ratio[0], ratio[1]);
      const inCurrency = legs.filter((l) => l.currency === c).map((l) => ({ ...l, tags: {} }));
      for (const side of ['debit', 'credit'] as const) {
        postings.push(...scaledSide(inCurrency.filter((l) => l.direction === side), ratio, target));
      }
    }
    return {
      idempotencyKey: key,
      kind: 'refund',
      reverses: original.id,
      refund: { amount, currency: refundCurrency },
      metadata: { ...body.metadata, _refund_of: original.id },
      valueDate: new Date(),
      postings: flipped(postings.filter((p) => p.amount > 0n)),
      externalRefs: [],
      conditions: [],
      voids: null,
    };
  }
}
