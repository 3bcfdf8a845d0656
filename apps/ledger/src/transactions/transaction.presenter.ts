import { presentBalance } from '../balances/balance.presenter';
import { CompactAccount, presentPosting, PresentedPosting } from '../postings/posting.presenter';
import { PostingEntity } from '../postings/posting.entity';
import { TransactionEntity } from './transaction.entity';
import { ExternalRefRecord } from '../books/engine-batch';

/** Everything a transaction's wire form is built from. */
export interface TransactionView {
  transaction: TransactionEntity;
  postings: PostingEntity[];
  refs: ExternalRefRecord[];
  reversedBy: string | null;
  /** Its creation's index in the ledger's books log; null until sealed (a write's own answer always). */
  logIndex?: number | null;
  /** With `expand=postings.account`. */
  accounts?: Map<string, CompactAccount>;
  /** With `expand=balances`. */
  balances?: ReturnType<typeof presentBalance>[];
}

export type TransactionStatus = 'pending' | 'posted' | 'archived';

export function statusOf(postings: PostingEntity[], reversedBy: string | null): TransactionStatus {
  if (reversedBy) return 'archived';
  return postings.some((p) => p.pending && !p.voidedAt) ? 'pending' : 'posted';
}

const RATE_DECIMALS = 12n;

/** Quote units per base unit, frozen by the immutable postings, when the legs span exactly two currencies. */
function exchangeRate(postings: PresentedPosting[]) {
  const gross = new Map<string, bigint>();
  for (const p of postings) if (p.direction === 'debit' && !p.voided_at) gross.set(p.currency, (gross.get(p.currency) ?? 0n) + BigInt(p.amount));
  if (gross.size !== 2) return { exchange_rate: null, base_currency: null, quote_currency: null };
  const [[base, baseAmount], [quote, quoteAmount]] = [...gross];
  const scaled = (quoteAmount * 10n ** RATE_DECIMALS) / baseAmount;
  const digits = scaled.toString().padStart(Number(RATE_DECIMALS) + 1, '0');
  const rate = `${digits.slice(0, -Number(RATE_DECIMALS))}.${digits.slice(-Number(RATE_DECIMALS))}`.replace(/\.?0+$/, '');
  return { exchange_rate: rate, base_currency: base, quote_currency: quote };
}

export function presentExternalRef(r: ExternalRefRecord) {
  return {
    object: 'external_ref' as const,
    id: r.id,
    rail: r.rail,
    ref_kind: r.refKind,
    value: r.value,
    metadata: r.metadata,
    created_at: r.createdAt.toISOString(),
  };
}

export function presentTransaction(v: TransactionView) {
  const t = v.transaction;
  const postings = v.postings.map((p) => presentPosting(p, v.accounts?.get(p.accountId)));
  const refund = t.kind === 'refund';
  return {
    object: 'transaction' as const,
    id: t.id,
    idempotency_key: t.idempotencyKey,
    status: statusOf(v.postings, v.reversedBy),
    reverses: t.reverses,
    reversed_by: v.reversedBy,
    refunds: refund ? t.reverses : null,
    refund_amount: t.refundAmount,
    refund_currency: t.refundCurrency,
    ...exchangeRate(postings),
    metadata: t.metadata,
    postings,
    external_refs: v.refs.map(presentExternalRef),
    value_date: t.valueDate.toISOString(),
    booking_date: t.bookingDate.toISOString(),
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
    log_index: v.logIndex ?? null,
    ...(v.balances && { balances: v.balances }),
  };
}

export type PresentedTransaction = ReturnType<typeof presentTransaction>;
