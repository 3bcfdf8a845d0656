import { normalSide } from '../accounts/account-kinds';
import { balanceFigures } from '../books/balance-figures';
import { FlowLeg, ReportAccount } from './reports.repository';

/** ReportAccountRow: balances positive on the normal side; debit and credit totals of posted legs. */
export function accountRow(a: ReportAccount) {
  const f = balanceFigures(a.type, a.totals);
  return {
    account: a.id,
    name: a.name,
    type: a.type,
    currency: a.currency,
    posted: f.posted.toString(),
    pending: f.pending.toString(),
    debit_total: a.totals.postedDebits.toString(),
    credit_total: a.totals.postedCredits.toString(),
  };
}

export function isZero(a: ReportAccount): boolean {
  const t = a.totals;
  return t.postedDebits === 0n && t.postedCredits === 0n && t.pendingDebits === 0n && t.pendingCredits === 0n;
}

type Sums = Record<string, bigint>;

function byCurrency<K extends string>(keys: readonly K[], rows: ReportAccount[], add: (a: ReportAccount, sums: Record<K, bigint>) => void) {
  const out = new Map<string, Record<K, bigint>>();
  for (const a of rows) {
    const sums = out.get(a.currency) ?? (Object.fromEntries(keys.map((k) => [k, 0n])) as Record<K, bigint>);
    add(a, sums);
    out.set(a.currency, sums);
  }
  return out;
}

export function stringify(map: Map<string, Sums>): Record<string, Record<string, string>> {
  return Object.fromEntries([...map].map(([c, sums]) => [c, Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v.toString()]))]));
}

/** Posted debit and credit totals per currency and their residual (debit minus credit). */
export function trialTotals(rows: ReportAccount[]) {
  const totals = byCurrency(['debit', 'credit', 'residual'] as const, rows, (a, s) => {
    s.debit += a.totals.postedDebits;
    s.credit += a.totals.postedCredits;
    s.residual += a.totals.postedDebits - a.totals.postedCredits;
  });
  return { totals, healthy: [...totals.values()].every((t) => t.residual === 0n) };
}

export function balanceSheetTotals(rows: ReportAccount[]) {
  const keys = ['assets', 'liabilities', 'equity', 'retained_earnings', 'total_liabilities_and_equity', 'residual'] as const;
  const totals = byCurrency(keys, rows, (a, s) => {
    const posted = balanceFigures(a.type, a.totals).posted;
    if (a.type === 'asset') s.assets += posted;
    if (a.type === 'liability') s.liabilities += posted;
    if (a.type === 'equity') s.equity += posted;
    if (a.type === 'revenue') s.retained_earnings += posted;
    if (a.type === 'expense') s.retained_earnings -= posted;
  });
  for (const s of totals.values()) {
    s.total_liabilities_and_equity = s.liabilities + s.equity + s.retained_earnings;
    s.residual = s.assets - s.total_liabilities_and_equity;
  }
  return totals;
}

export function incomeTotals(rows: ReportAccount[]) {
  const totals = byCurrency(['revenue', 'expense', 'net_income'] as const, rows, (a, s) => {
    const posted = balanceFigures(a.type, a.totals).posted;
    if (a.type === 'revenue') s.revenue += posted;
    if (a.type === 'expense') s.expense += posted;
  });
  for (const s of totals.values()) s.net_income = s.revenue - s.expense;
  return totals;
}

const CASH_BUCKETS = ['operating', 'investing', 'financing', 'uncategorized', 'net_change'] as const;

/**
 * Net change of asset accounts per currency, bucketed by the types of the other legs of the same
 * transaction: revenue/expense is operating, liability/equity financing, assets only investing,
 * a mix uncategorized.
 */
export function cashFlowTotals(legs: FlowLeg[]) {
  const perTx = new Map<string, { asset: bigint; others: Set<string> }>();
  for (const leg of legs) {
    const key = JSON.stringify([leg.transactionId, leg.currency]);
    const entry = perTx.get(key) ?? { asset: 0n, others: new Set<string>() };
    if (leg.type === 'asset') entry.asset += leg.debits - leg.credits;
    else entry.others.add(leg.type);
    perTx.set(key, entry);
  }
  const totals = new Map<string, Record<(typeof CASH_BUCKETS)[number], bigint>>();
  for (const [key, { asset, others }] of perTx) {
    const currency = (JSON.parse(key) as string[])[1];
    const sums = totals.get(currency) ?? (Object.fromEntries(CASH_BUCKETS.map((k) => [k, 0n])) as Record<(typeof CASH_BUCKETS)[number], bigint>);
    const kinds = [...others];
    const bucket =
      kinds.length === 0
        ? 'investing'
        : kinds.every((k) => k === 'revenue' || k === 'expense')
          ? 'operating'
          : kinds.every((k) => k === 'liability' || k === 'equity')
            ? 'financing'
            : 'uncategorized';
    sums[bucket] += asset;
    sums.net_change += asset;
    totals.set(currency, sums);
  }
  return totals;
}

/** Net change of one account over a window, positive on its normal side. */
export function netChange(a: ReportAccount): bigint {
  const net = a.totals.postedDebits - a.totals.postedCredits;
  return normalSide(a.type) === 'debit' ? net : -net;
}

/** One reserve (restricted) account's posted balance. */
export function reserveEntry(a: ReportAccount) {
  return {
    reserve_account_id: a.id,
    template: a.template,
    counterparty_ref: a.counterpartyRef,
    currency: a.currency,
    posted: balanceFigures(a.type, a.totals).posted.toString(),
  };
}

export function reserveTotals(rows: ReportAccount[]) {
  return byCurrency(['posted'] as const, rows, (a, s) => {
    s.posted += balanceFigures(a.type, a.totals).posted;
  });
}

/**
 * Per currency: what the books owe clients (posted balances of client_held accounts) against what
 * custodians hold (posted balances of accounts naming a custody_provider), broken down by
 * custody account; delta = custody_held_total - client_held_total (negative: a shortfall).
 */
export function fundSegregation(rows: ReportAccount[]) {
  const currencies = new Map<string, { client: bigint; custody: Map<string, bigint> }>();
  for (const a of rows) {
    const custodied = a.custodyProvider !== null;
    if (a.fundClassification !== 'client_held' && !custodied) continue;
    const entry = currencies.get(a.currency) ?? { client: 0n, custody: new Map<string, bigint>() };
    const posted = balanceFigures(a.type, a.totals).posted;
    if (a.fundClassification === 'client_held') entry.client += posted;
    if (custodied) {
      const key = JSON.stringify([a.custodyProvider, a.custodyExternalId]);
      entry.custody.set(key, (entry.custody.get(key) ?? 0n) + posted);
    }
    currencies.set(a.currency, entry);
  }
  return [...currencies]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([currency, { client, custody }]) => {
      const breakdown = [...custody].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
      const held = breakdown.reduce((sum, [, balance]) => sum + balance, 0n);
      return {
        currency,
        client_held_total: client.toString(),
        custody_held_total: held.toString(),
        delta: (held - client).toString(),
        custody_breakdown: breakdown.map(([key, balance]) => {
          const [provider, externalId] = JSON.parse(key) as [string, string | null];
          return { custody_provider: provider, custody_external_id: externalId, balance: balance.toString() };
        }),
      };
    });
}
