import type { StatementFormat, StatementSummary } from './parsers/statement';

export interface StatementImportError {
  code: string;
  message: string;
  param: string;
  external_id: string | null;
}

/** A statement's closing balance against the ledger account's posted balance at its end date. */
export interface BalanceCheck {
  account_reference: string;
  account_id: string;
  statement_closing: string;
  ledger_balance: string;
  /** Statement minus ledger; 0 when they agree. */
  difference: string;
}

export interface StatementImportRecord {
  id: string;
  sourceId: string;
  format: StatementFormat;
  statements: StatementSummary[];
  createdCount: number;
  replayedCount: number;
  errorCount: number;
  errors: StatementImportError[];
  balanceChecks: BalanceCheck[];
  createdAt: Date;
}

export const STATEMENT_IMPORT_COLUMNS = `id, source_id AS "sourceId", format, statements, created_count AS "createdCount",
  replayed_count AS "replayedCount", error_count AS "errorCount", errors, balance_checks AS "balanceChecks", created_at AS "createdAt"`;

export function presentStatementImport(r: StatementImportRecord) {
  return {
    object: 'statement_import' as const,
    id: r.id,
    source_id: r.sourceId,
    format: r.format,
    statements: r.statements,
    created_count: r.createdCount,
    replayed_count: r.replayedCount,
    error_count: r.errorCount,
    errors: r.errors,
    balance_checks: r.balanceChecks,
    created_at: r.createdAt.toISOString(),
  };
}

export type PresentedStatementImport = ReturnType<typeof presentStatementImport>;
