import type { Request } from 'express';
import { stringify } from 'csv-stringify/sync';
import Negotiator from 'negotiator';

/** A plain decimal (an amount, a count): spreadsheets read it as a number, never as a formula. */
const NUMBER = /^-?\d+(\.\d+)?$/;
/** Leading characters a spreadsheet treats as the start of a formula (CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Text a client wrote (account names, references) is neutralised with a leading apostrophe. */
function neutralise(text: string): string {
  return FORMULA_START.test(text) && !NUMBER.test(text) ? `'${text}` : text;
}

/**
 * One table: a `section` column (`account` rows, then `total` rows per currency), then the union
 * of every row's columns in first-seen order.
 */
export function toCsv(accounts: Record<string, unknown>[], totals: Record<string, Record<string, string>>): string {
  const rows = [
    ...accounts.map((a) => ({ section: 'account', ...a })),
    ...Object.entries(totals).map(([currency, sums]) => ({ section: 'total', currency, ...sums })),
  ];
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (columns.length === 0) return '\r\n';
  return stringify([columns, ...rows.map((r) => columns.map((c) => (r as Record<string, unknown>)[c]))], {
    record_delimiter: 'windows',
    eof: true,
    cast: {
      string: neutralise,
      boolean: (value) => String(value),
      date: (value) => value.toISOString(),
    },
  });
}

/**
 * CSV when the Accept header prefers text/csv over JSON by its q-values; when the header accepts
 * both equally (or names neither), `format` decides.
 */
export function wantsCsv(req: Request, format: string | undefined): boolean {
  const offered = format === 'csv' ? ['text/csv', 'application/json'] : ['application/json', 'text/csv'];
  const chosen = req.headers.accept ? new Negotiator(req).mediaType(offered) : undefined;
  return (chosen ?? offered[0]) === 'text/csv';
}
