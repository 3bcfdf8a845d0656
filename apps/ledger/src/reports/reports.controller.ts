import { applyDecorators, Get, Query, Req, Res, Type } from '@nestjs/common';
import { ApiOperation, ApiProduces } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RequireScope } from '../auth/require-scope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { FundSegregationQuery, PeriodReportQuery, PointInTimeQuery, ReservesOutstandingQuery } from './dto/report-queries';
import {
  BalanceSheetReport,
  CashFlowReport,
  FundSegregationReport,
  IncomeStatementReport,
  ReservesOutstandingReport,
  TrialBalanceReport,
} from './dto/report.responses';
import { toCsv, wantsCsv } from './report-csv';
import { Report, ReportsService } from './reports.service';

const dateOr = <F extends Date | null>(value: string | undefined, fallback: F) => (value ? new Date(value) : fallback);

/** A report route: read scope, answered as the JSON envelope or as CSV (see `send`). */
const ReportRoute = (path: string, report: Type<unknown>, summary: string) =>
  applyDecorators(Get(path), RequireScope('ledger:read'), ApiProduces('application/json', 'text/csv'), ApiEnveloped(report), ApiOperation({ summary }));

@LedgerApiController('reports', 'Reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  /**
   * CSV (`format=csv` or `Accept: text/csv`, the header wins) or the single-resource envelope. These
   * routes write their own response, since one of the two bodies is not JSON.
   */
  private send(req: Request, res: Response, format: string | undefined, report: Report): void {
    if (wantsCsv(req, format)) {
      res.status(200).type('text/csv').send(toCsv(report.csvAccounts, report.csvTotals));
      return;
    }
    res.status(200).json({ data: report.body, livemode: req.livemode ?? false, request_id: String(req.id) });
  }

  @ReportRoute('trial_balance', TrialBalanceReport, 'Every account at `at` (value_date); healthy when every currency nets to zero')
  async trialBalance(@CurrentLedger() ledger: LedgerScope, @Query() q: PointInTimeQuery, @Req() req: Request, @Res() res: Response) {
    const report = await this.reports.trialBalance(ledger, dateOr(q.at, new Date()), { currency: q.currency, includeZero: q.include_zero === 'true' });
    this.send(req, res, q.format, report);
  }

  @ReportRoute('balance_sheet', BalanceSheetReport, 'Assets, liabilities, equity and retained earnings (revenue minus expense) at `at`')
  async balanceSheet(@CurrentLedger() ledger: LedgerScope, @Query() q: PointInTimeQuery, @Req() req: Request, @Res() res: Response) {
    this.send(req, res, q.format, await this.reports.balanceSheet(ledger, dateOr(q.at, new Date()), { currency: q.currency }));
  }

  @ReportRoute('income_statement', IncomeStatementReport, 'Revenue, expense and net income over [from, to), optionally bucketed by granularity')
  async incomeStatement(@CurrentLedger() ledger: LedgerScope, @Query() q: PeriodReportQuery, @Req() req: Request, @Res() res: Response) {
    await this.sendPeriodReport('incomeStatement', ledger, q, req, res);
  }

  @ReportRoute('cash_flow', CashFlowReport, 'Net change of asset accounts over [from, to), bucketed by the kind of the opposite legs; pending excluded')
  async cashFlow(@CurrentLedger() ledger: LedgerScope, @Query() q: PeriodReportQuery, @Req() req: Request, @Res() res: Response) {
    await this.sendPeriodReport('cashFlow', ledger, q, req, res);
  }

  /** A report over [from, to): from the beginning and until now when not given. */
  private async sendPeriodReport(kind: 'incomeStatement' | 'cashFlow', ledger: LedgerScope, q: PeriodReportQuery, req: Request, res: Response) {
    const report = await this.reports[kind](ledger, dateOr(q.from, null), dateOr(q.to, new Date()), q.granularity, { currency: q.currency });
    this.send(req, res, q.format, report);
  }

  @ReportRoute('reserves_outstanding', ReservesOutstandingReport, 'Posted balance of every reserve (restricted) account at `at`, with totals per currency')
  async reservesOutstanding(@CurrentLedger() ledger: LedgerScope, @Query() q: ReservesOutstandingQuery, @Req() req: Request, @Res() res: Response) {
    this.send(req, res, q.format, await this.reports.reservesOutstanding(ledger, dateOr(q.at, new Date()), { currency: q.currency }));
  }

  @ReportRoute('fund_segregation', FundSegregationReport, 'Per currency at value_date: client_held balances against custody holdings (accounts naming a custody_provider), and their delta')
  async fundSegregation(@CurrentLedger() ledger: LedgerScope, @Query() q: FundSegregationQuery, @Req() req: Request, @Res() res: Response) {
    this.send(req, res, q.format, await this.reports.fundSegregation(ledger, q.value_date, { currency: q.currency }));
  }
}
