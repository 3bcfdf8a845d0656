import type { Request } from 'express';

/** RFC 4180 field: quoted when it holds a comma, quote or line break. */
function field(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
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
  const lines = [columns, ...rows.map((r) => columns.map((c) => (r as Record<string, unknown>)[c]))];
  return `${lines.map((l) => l.map(field).join(',')).join('\r\n')}\r\n`;
}

/** CSV when Accept names text/csv, JSON when it names JSON; otherwise `format` decides. */
export function wantsCsv(req: Request, format: string | undefined): boolean {
  const accept = req.headers.accept ?? '';
  if (/\btext\/csv\b/i.test(accept)) return true;
  if (/\bapplication\/json\b/i.test(accept)) return false;
  return format === 'csv';
}
