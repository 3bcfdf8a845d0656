import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ACCOUNT_TYPES } from '../../accounts/account-kinds';

/** Reports' wire shapes (documentation only; ReportsService builds them). Amounts are minor-unit strings. */
const MINOR = { type: 'string', pattern: '^-?\\d+$' } as const;

/** A `{CUR: {field: "123", ...}}` map. */
function byCurrency(fields: string[], description?: string) {
  return {
    type: 'object',
    description,
    additionalProperties: { type: 'object', required: fields, properties: Object.fromEntries(fields.map((f) => [f, MINOR])) },
  } as const;
}

export class ReportAccountRow {
  @ApiProperty({ description: 'Account id' }) account: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ACCOUNT_TYPES }) type: string;
  @ApiProperty() currency: string;
  @ApiProperty(MINOR) posted: string;
  @ApiProperty(MINOR) pending: string;
  @ApiProperty(MINOR) debit_total: string;
  @ApiProperty(MINOR) credit_total: string;
  @ApiPropertyOptional({ ...MINOR, description: 'Income statement: change over the window' }) net_change?: string;
}

export class CashFlowAccountRow {
  @ApiProperty() account: string;
  @ApiProperty() name: string;
  @ApiProperty() currency: string;
  @ApiProperty(MINOR) net_change: string;
}

class PointInTimeReport {
  @ApiProperty({ format: 'uuid' }) ledger_id: string;
  @ApiProperty({ format: 'date-time' }) as_of: string;
  @ApiProperty({ description: 'Every currency nets to zero' }) healthy: boolean;
  @ApiProperty({ type: [ReportAccountRow] }) accounts: ReportAccountRow[];
}

export class TrialBalanceReport extends PointInTimeReport {
  @ApiProperty({ enum: ['trial_balance'] }) object: 'trial_balance';
  @ApiProperty(byCurrency(['debit', 'credit', 'residual'])) totals_by_currency: Record<string, unknown>;
}

export class BalanceSheetReport extends PointInTimeReport {
  @ApiProperty({ enum: ['balance_sheet'] }) object: 'balance_sheet';
  @ApiProperty(byCurrency(['assets', 'liabilities', 'equity', 'retained_earnings', 'total_liabilities_and_equity', 'residual']))
  by_currency: Record<string, unknown>;
}

export class ReportPeriod {
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'null: from the first posting' }) from: string | null;
  @ApiProperty({ format: 'date-time' }) to: string;
}

export class ReportBucket {
  @ApiProperty({ format: 'date-time' }) period_start: string;
  @ApiProperty({ format: 'date-time' }) period_end: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'object', additionalProperties: MINOR } }) by_currency: Record<string, unknown>;
}

class PeriodReport {
  @ApiProperty({ format: 'uuid' }) ledger_id: string;
  @ApiProperty({ type: ReportPeriod }) period: ReportPeriod;
  @ApiPropertyOptional({ enum: ['day', 'week', 'month'], description: 'Only when asked' }) granularity?: string;
  @ApiPropertyOptional({ type: [ReportBucket], description: 'Only with granularity' }) series?: ReportBucket[];
}

export class IncomeStatementReport extends PeriodReport {
  @ApiProperty({ enum: ['income_statement'] }) object: 'income_statement';
  @ApiProperty({ type: [ReportAccountRow] }) accounts: ReportAccountRow[];
  @ApiProperty(byCurrency(['revenue', 'expense', 'net_income'])) by_currency: Record<string, unknown>;
}

export class CashFlowReport extends PeriodReport {
  @ApiProperty({ enum: ['cash_flow'] }) object: 'cash_flow';
  @ApiProperty({ type: [CashFlowAccountRow] }) accounts: CashFlowAccountRow[];
  @ApiProperty(byCurrency(['operating', 'investing', 'financing', 'uncategorized', 'net_change'])) by_currency: Record<string, unknown>;
}

export class ReserveEntry {
  @ApiProperty({ description: 'The restricted account' }) reserve_account_id: string;
  @ApiProperty({ type: 'string', nullable: true }) template: string | null;
  @ApiProperty({ type: 'string', nullable: true }) counterparty_ref: string | null;
  @ApiProperty() currency: string;
  @ApiProperty(MINOR) posted: string;
}

export class ReservesOutstandingReport {
  @ApiProperty({ enum: ['reserves_outstanding'] }) object: 'reserves_outstanding';
  @ApiProperty({ format: 'uuid' }) ledger_id: string;
  @ApiProperty({ format: 'date-time' }) as_of: string;
  @ApiProperty({ type: 'integer' }) reserve_account_count: number;
  @ApiProperty({ type: [ReserveEntry] }) entries: ReserveEntry[];
  @ApiProperty(byCurrency(['posted'])) totals_by_currency: Record<string, unknown>;
}

export class CustodyHolding {
  @ApiProperty() custody_provider: string;
  @ApiProperty({ type: 'string', nullable: true }) custody_external_id: string | null;
  @ApiProperty(MINOR) balance: string;
}

export class FundSegregationCurrency {
  @ApiProperty() currency: string;
  @ApiProperty({ ...MINOR, description: 'Posted balances of client_held accounts' }) client_held_total: string;
  @ApiProperty({ ...MINOR, description: 'Posted balances of accounts naming a custody_provider' }) custody_held_total: string;
  @ApiProperty({ ...MINOR, description: 'custody_held_total - client_held_total; negative is a shortfall' }) delta: string;
  @ApiProperty({ type: [CustodyHolding] }) custody_breakdown: CustodyHolding[];
}

export class FundSegregationReport {
  @ApiProperty({ enum: ['report'] }) object: 'report';
  @ApiProperty({ enum: ['fund_segregation'] }) report: 'fund_segregation';
  @ApiProperty({ format: 'uuid' }) ledger_id: string;
  @ApiProperty({ description: 'As asked (a date or an instant), else now' }) value_date: string;
  @ApiProperty({ type: [FundSegregationCurrency] }) by_currency: FundSegregationCurrency[];
}
