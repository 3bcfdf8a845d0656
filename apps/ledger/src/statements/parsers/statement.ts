import { describeCurrency, normalizeCurrency } from '../../accounts/currencies';
import { StatementErrors } from '../statement-errors';

export type StatementFormat = 'camt053' | 'mt940' | 'bai2' | 'ofx' | 'csv';
export const STATEMENT_FORMATS: readonly StatementFormat[] = ['camt053', 'mt940', 'bai2', 'ofx', 'csv'];

/** Reference triple, when the file carries one (end-to-end id, check number, trace number). */
export interface StatementReference {
  rail: string;
  kind: string;
  value: string;
}

export interface StatementEntry {
  /** The bank's own reference, stable across re-imports. */
  external_id: string;
  /** Signed minor units. */
  amount: string;
  currency: string;
  booking_date: string;
  value_date: string | null;
  raw: { counterparty: string | null; remittance: string | null };
  reference: StatementReference | null;
}

export interface ParsedStatement {
  account_reference: string;
  currency: string;
  from: string | null;
  to: string | null;
  opening_balance: string | null;
  closing_balance: string | null;
  entries: StatementEntry[];
}

/** A statement as an import keeps it once read: its figures, and how many entries it held. */
export type StatementSummary = Omit<ParsedStatement, 'entries'> & { entry_count: number };

/** Entries of one statement in file order; a long statement comes in several batches. */
export interface EntryBatch {
  /** Index of the statement in the file. */
  statement: number;
  account_reference: string;
  entries: StatementEntry[];
}

/**
 * A file being read: yields its entries in batches as they are parsed and returns the statements'
 * summaries at the end. A malformed file throws `invalid_statement` at the point of the fault, so
 * a caller writing batches as they come must do so in a transaction it can roll back.
 */
export type StatementReader = Generator<EntryBatch, StatementSummary[], void>;

function summarize({ entries, ...statement }: ParsedStatement): StatementSummary {
  return { ...statement, entry_count: entries.length };
}

/** A reader over statements parsed whole (the line-based formats, whose files are small). */
export function* inBatches(statements: ParsedStatement[], batchSize: number): StatementReader {
  for (const [statement, s] of statements.entries()) {
    for (let start = 0; start < s.entries.length; start += batchSize) {
      yield { statement, account_reference: s.account_reference, entries: s.entries.slice(start, start + batchSize) };
    }
  }
  return statements.map(summarize);
}

/** A refusal naming where the file is wrong (`line 12`, `Document/BkToCstmrStmt/Stmt[0]/Ntry[3]`) and the field. */
export function invalidStatement(where: string, field: string, problem: string) {
  return StatementErrors.error('invalid_statement', { message: `${where}: ${field} ${problem}`, param: field });
}

/** Exponent of a currency's minor unit; unknown currencies are taken as cents, the common case for bank files. */
export function currencyExponent(currency: string): number {
  return describeCurrency(normalizeCurrency(currency)).currency_decimals ?? 2;
}

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?$/;

/**
 * A decimal string ("1234.5", "-0.07") in minor units of `currency`, by string arithmetic so no float
 * ever rounds it. More fraction digits than the currency has is refused, not rounded.
 */
export function toMinorUnits(decimal: string, currency: string, where: string, field: string): string {
  const match = DECIMAL.exec(decimal.trim());
  if (!match) throw invalidStatement(where, field, `is not a decimal amount ("${decimal}")`);
  const [, sign, whole, fraction = ''] = match;
  const exponent = currencyExponent(currency);
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > exponent) throw invalidStatement(where, field, `has more decimals than ${currency} allows ("${decimal}")`);
  const minor = BigInt(whole + fraction.padEnd(exponent, '0').slice(0, exponent));
  return (sign === '-' ? -minor : minor).toString();
}

export function negate(minor: string): string {
  return (-BigInt(minor)).toString();
}

/** YYMMDD (MT940) or YYYYMMDD/YYMMDD (BAI2, OFX) into YYYY-MM-DD, checked as a calendar date. */
export function compactDate(value: string, where: string, field: string): string {
  const m = /^(\d{2}|\d{4})(\d{2})(\d{2})$/.exec(value);
  if (!m) throw invalidStatement(where, field, `is not a date ("${value}")`);
  const year = m[1].length === 2 ? `20${m[1]}` : m[1];
  return isoDate(`${year}-${m[2]}-${m[3]}`, where, field);
}

export function isoDate(value: string, where: string, field: string): string {
  const day = value.slice(0, 10);
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(day) ? new Date(`${day}T00:00:00Z`) : null;
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) {
    throw invalidStatement(where, field, `is not a date ("${value}")`);
  }
  return day;
}
