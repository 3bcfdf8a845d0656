import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { normalizeCurrency } from '../accounts/currencies';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { Granularity } from './dto/report-queries';
import {
  accountRow,
  balanceSheetTotals,
  cashFlowTotals,
  fundSegregation,
  incomeTotals,
  isZero,
  netChange,
  reserveEntry,
  reserveTotals,
  stringify,
  trialTotals,
} from './report-figures';
import { ReportAccount, ReportsRepository, Window } from './reports.repository';

const MAX_BUCKETS = 400;

export interface ReportFilter {
  currency?: string;
}

/** A report in both forms: the JSON object and the rows its CSV lists. */
export interface Report {
  body: Record<string, unknown>;
  csvAccounts: Record<string, unknown>[];
  csvTotals: Record<string, Record<string, string>>;
}

function nextBoundary(at: Date, granularity: Granularity): Date {
  const d = new Date(at);
  if (granularity === 'day') d.setUTCDate(d.getUTCDate() + 1);
  if (granularity === 'week') d.setUTCDate(d.getUTCDate() + 7);
  if (granularity === 'month') d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
}

function buckets(from: Date, to: Date, granularity: Granularity): Window[] {
  const out: Window[] = [];
  for (let start = from; start < to; start = nextBoundary(start, granularity)) {
    if (out.length === MAX_BUCKETS) {
      throw LedgerErrors.error('invalid_request', { message: `At most ${MAX_BUCKETS} buckets; narrow the window`, param: 'granularity' });
    }
    const end = nextBoundary(start, granularity);
    out.push({ from: start, to: end < to ? end : to, toExclusive: true });
  }
  return out;
}

@Injectable()
export class ReportsService {
  constructor(private readonly reports: ReportsRepository) {}

  private async accounts(scope: LedgerScope, window: Window, filter: ReportFilter, manager?: EntityManager): Promise<ReportAccount[]> {
    const rows = await this.reports.accounts(scope, window, manager);
    const currency = filter.currency === undefined ? undefined : normalizeCurrency(filter.currency);
    return currency === undefined ? rows : rows.filter((r) => r.currency === currency);
  }

  /**
   * Balances at `at` and whether every currency nets to zero. With `exclusive`, postings dated
   * exactly `at` are left out (a period close freezes what precedes its end).
   */
  async trialBalance(
    scope: LedgerScope,
    at: Date,
    opts: ReportFilter & { includeZero?: boolean; exclusive?: boolean },
    manager?: EntityManager,
  ): Promise<Report> {
    const all = await this.accounts(scope, { from: null, to: at, toExclusive: opts.exclusive ?? false }, opts, manager);
    const rows = opts.includeZero ? all : all.filter((a) => !isZero(a));
    const { totals, healthy } = trialTotals(rows);
    const accounts = rows.map(accountRow);
    const csvTotals = stringify(totals);
    return {
      body: { object: 'trial_balance', ledger_id: scope.ledgerId, as_of: at.toISOString(), healthy, accounts, totals_by_currency: csvTotals },
      csvAccounts: accounts,
      csvTotals,
    };
  }

  async balanceSheet(scope: LedgerScope, at: Date, filter: ReportFilter): Promise<Report> {
    const rows = (await this.accounts(scope, { from: null, to: at, toExclusive: false }, filter)).filter((a) => !isZero(a));
    const totals = stringify(balanceSheetTotals(rows));
    const healthy = Object.values(totals).every((t) => t.residual === '0');
    const accounts = rows.map(accountRow);
    return {
      body: { object: 'balance_sheet', ledger_id: scope.ledgerId, as_of: at.toISOString(), healthy, accounts, by_currency: totals },
      csvAccounts: accounts,
      csvTotals: totals,
    };
  }

  async incomeStatement(scope: LedgerScope, from: Date | null, to: Date, granularity: Granularity | undefined, filter: ReportFilter): Promise<Report> {
    const figures = async (window: Window) => {
      const rows = (await this.accounts(scope, window, filter)).filter((a) => (a.type === 'revenue' || a.type === 'expense') && !isZero(a));
      return { rows, totals: stringify(incomeTotals(rows)) };
    };
    return this.periodReport(scope, 'income_statement', from, to, granularity, figures, (a) => ({
      ...accountRow(a),
      net_change: netChange(a).toString(),
    }));
  }

  async cashFlow(scope: LedgerScope, from: Date | null, to: Date, granularity: Granularity | undefined, filter: ReportFilter): Promise<Report> {
    const currency = filter.currency === undefined ? undefined : normalizeCurrency(filter.currency);
    const figures = async (window: Window) => {
      const rows = (await this.accounts(scope, window, filter)).filter((a) => a.type === 'asset' && !isZero(a));
      const legs = (await this.reports.flows(scope, window)).filter((l) => currency === undefined || l.currency === currency);
      return { rows, totals: stringify(cashFlowTotals(legs)) };
    };
    return this.periodReport(scope, 'cash_flow', from, to, granularity, figures, (a) => ({
      account: a.id,
      name: a.name,
      currency: a.currency,
      net_change: netChange(a).toString(),
    }));
  }

  /** Posted balances of every reserve (restricted) account at `at`, with totals per currency. */
  async reservesOutstanding(scope: LedgerScope, at: Date, filter: ReportFilter): Promise<Report> {
    const rows = (await this.accounts(scope, { from: null, to: at, toExclusive: false }, filter)).filter((a) => a.kind === 'restricted');
    const entries = rows.map(reserveEntry);
    const totals = stringify(reserveTotals(rows));
    return {
      body: {
        object: 'reserves_outstanding',
        ledger_id: scope.ledgerId,
        as_of: at.toISOString(),
        reserve_account_count: rows.length,
        entries,
        totals_by_currency: totals,
      },
      csvAccounts: entries,
      csvTotals: totals,
    };
  }

  /**
   * Client-held funds against custody holdings per currency at `valueDate`: a date counts postings
   * through the end of that UTC day, an instant those at or before it (default now).
   */
  async fundSegregation(scope: LedgerScope, valueDate: string | undefined, filter: ReportFilter): Promise<Report> {
    const wholeDay = valueDate !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(valueDate);
    const to = valueDate === undefined ? new Date() : wholeDay ? nextBoundary(new Date(`${valueDate}T00:00:00Z`), 'day') : new Date(valueDate);
    const byCurrency = fundSegregation(await this.accounts(scope, { from: null, to, toExclusive: wholeDay }, filter));
    return {
      body: { object: 'report', report: 'fund_segregation', ledger_id: scope.ledgerId, value_date: valueDate ?? to.toISOString(), by_currency: byCurrency },
      csvAccounts: byCurrency.flatMap((c) => c.custody_breakdown.map((b) => ({ currency: c.currency, ...b }))),
      csvTotals: Object.fromEntries(
        byCurrency.map((c) => [c.currency, { client_held_total: c.client_held_total, custody_held_total: c.custody_held_total, delta: c.delta }]),
      ),
    };
  }

  /** A report over [from, to) with optional bucketed series; both bounds are needed for buckets. */
  private async periodReport(
    scope: LedgerScope,
    object: string,
    from: Date | null,
    to: Date,
    granularity: Granularity | undefined,
    figures: (w: Window) => Promise<{ rows: ReportAccount[]; totals: Record<string, Record<string, string>> }>,
    row: (a: ReportAccount) => Record<string, unknown>,
  ): Promise<Report> {
    if (from && from >= to) throw LedgerErrors.error('invalid_request', { message: 'from must precede to', param: 'from' });
    if (granularity && !from) {
      throw LedgerErrors.error('invalid_request', { message: 'granularity needs both from and to', param: 'from' });
    }
    const whole = await figures({ from, to, toExclusive: true });
    const series = [];
    for (const w of granularity && from ? buckets(from, to, granularity) : []) {
      series.push({ period_start: w.from?.toISOString() ?? null, period_end: w.to.toISOString(), by_currency: (await figures(w)).totals });
    }
    const accounts = whole.rows.map(row);
    return {
      body: {
        object,
        ledger_id: scope.ledgerId,
        period: { from: from?.toISOString() ?? null, to: to.toISOString() },
        accounts,
        by_currency: whole.totals,
        ...(granularity && { granularity, series }),
      },
      csvAccounts: accounts,
      csvTotals: whole.totals,
    };
  }
}
