import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { EntityManager } from 'typeorm';
import { normalizeCurrency } from '../accounts/currencies';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { EventsService } from '../events/events.service';
import { CorrectionDto } from './dto/correction.dto';
import { Expandable } from './expand';
import { refundLegs, reversalLegs } from '../books/correction-legs';
import { plannedOf, TransactionPlan } from '../books/transaction-plan';
import { TransactionErrors } from './transaction-errors';
import { presentTransaction, PresentedTransaction } from './transaction.presenter';
import { TransactionEntity } from './transaction.entity';
import { CorrectionHistory, TransactionsRepository } from './transactions.repository';
import { TransactionsService, WriteResult } from './transactions.service';

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

  /**
   * With `amount` (our contract's partial reverse) this is a refund. Both events (reversal_created,
   * then reversed) travel with the write; only when the reversal voids pending legs of the original
   * is its `reversed` form read back after the write, which stamps them with its own clock.
   */
  reverse(scope: LedgerScope, id: string, body: CorrectionDto, key: string | null, expand: Set<Expandable>): Promise<WriteResult> {
    if (body.amount !== undefined) return this.refund(scope, id, body, key, expand);
    let original: TransactionEntity;
    /** The original as the reversal `by` leaves it, known before the write (null when it voids some of its legs). */
    let reversed: ((by: string) => PresentedTransaction) | null;
    return this.service.writeOne(
      scope,
      async (manager) => {
        original = await this.lockOriginal(manager, scope, id);
        const history = await this.transactions.correctionHistory(manager, scope, original.id);
        const plan = await this.reversalPlan(manager, scope, original, history, body, key);
        const refs = plan.voids?.postingIds.length ? null : await this.transactions.refsOf(scope, [original.id], manager);
        reversed = refs && ((by) => presentTransaction({ transaction: original, postings: history.postings, refs, reversedBy: by }));
        return plan;
      },
      expand,
      {
        inWrite: (outcome, presented) => [
          { type: 'transaction.reversal_created', resourceId: outcome.transaction.id, data: presented },
          ...(reversed ? [{ type: 'transaction.reversed', resourceId: original.id, data: reversed(outcome.transaction.id) }] : []),
        ],
        after: async (manager) => {
          if (reversed) return;
          const [read] = await this.service.present(scope, [original], new Set(), manager);
          await this.events.record(manager, scope, 'transaction.reversed', original.id, read);
        },
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
      { inWrite: (outcome, presented) => [{ type: 'transaction.refund_created', resourceId: outcome.transaction.id, data: presented }] },
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
    { postings, refunded }: CorrectionHistory,
    body: CorrectionDto,
    key: string | null,
  ): Promise<TransactionPlan> {
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
      postings: reversalLegs(postings, refunded),
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
    const { postings, refunded } = await this.transactions.correctionHistory(manager, scope, original.id);
    const currency = body.currency === undefined ? undefined : normalizeCurrency(body.currency);
    const { legs, currency: refundCurrency } = refundLegs(postings, refunded, amount, currency);
    return {
      idempotencyKey: key,
      kind: 'refund',
      reverses: original.id,
      refund: { amount, currency: refundCurrency },
      metadata: { ...body.metadata, _refund_of: original.id },
      valueDate: new Date(),
      postings: legs,
      externalRefs: [],
      conditions: [],
      voids: null,
    };
  }
}
