import { CsvError, parse } from 'csv-parse/sync';
import { ParsedStatement, StatementEntry, invalidStatement, isoDate, toMinorUnits } from './statement';

/** How a source's CSV exports map onto statement entries; columns are named by header. */
export interface CsvMapping {
  delimiter?: string;
  date_column: string;
  /** Unicode date pattern (`dd.MM.yyyy`, `M/d/yy`); ISO `yyyy-MM-dd` when absent. */
  date_format?: string;
  amount_column?: string;
  debit_column?: string;
  credit_column?: string;
  currency_column?: string;
  currency?: string;
  reference_column: string;
  description_column?: string;
  counterparty_column?: string;
  decimal_separator?: string;
  thousands_separator?: string;
  skip_rows?: number;
  account_reference?: string;
}

const DATE_TOKENS: Record<string, string> = { yyyy: '(?<y>\\d{4})', yy: '(?<yy>\\d{2})', MM: '(?<m>\\d{2})', M: '(?<m>\\d{1,2})', dd: '(?<d>\\d{2})', d: '(?<d>\\d{1,2})' };

/** A Unicode date pattern (the y, M and d fields) as a matcher returning YYYY-MM-DD. */
export function datePattern(pattern: string): (value: string, where: string, field: string) => string {
  const source = pattern.replace(/yyyy|yy|MM|M|dd|d|[^yMd]/g, (token) => DATE_TOKENS[token] ?? token.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  const regex = new RegExp(`^${source}$`);
  return (value, where, field) => {
    const g = regex.exec(value.trim())?.groups;
    if (!g) throw invalidStatement(where, field, `does not match ${pattern} ("${value}")`);
    const year = g.y ?? `20${g.yy}`;
    return isoDate(`${year}-${g.m.padStart(2, '0')}-${g.d.padStart(2, '0')}`, where, field);
  };
}

function normalizeDecimal(value: string, mapping: CsvMapping): string {
  let out = value.trim().replace(/\s/g, '');
  if (mapping.thousands_separator) out = out.split(mapping.thousands_separator).join('');
  const decimal = mapping.decimal_separator ?? '.';
  if (decimal !== '.') out = out.replace(decimal, '.');
  // Accounting exports write negatives in parentheses.
  return /^\(.*\)$/.test(out) ? `-${out.slice(1, -1)}` : out;
}

/** A CSV export read through the source's mapping; without one the file is refused naming its header row. */
export function parseCsv(text: string, mapping: CsvMapping | null): ParsedStatement[] {
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, { delimiter: mapping?.delimiter ?? ',', bom: true, from_line: (mapping?.skip_rows ?? 0) + 1, relax_column_count: true, skip_empty_lines: true, info: true }) as unknown as typeof rows;
  } catch (error) {
    // csv-parse names the line of a broken quote or the like; anything else is not the file's fault.
    if (!(error instanceof CsvError)) throw error;
    throw invalidStatement(`line ${(error as CsvError & { lines?: number }).lines ?? 1}`, 'CSV', `is malformed (${error.message})`);
  }
  const header = rows[0]?.record ?? [];
  if (mapping === null) {
    throw invalidStatement('line 1', 'csv_mapping', `is not set on the source; set it with PATCH /sources/{id} naming columns of the header row: ${header.join(', ')}`);
  }
  const column = (name: string | undefined, field: string): number => {
    if (name === undefined) return -1;
    const index = header.indexOf(name);
    if (index === -1) throw invalidStatement(`line ${rows[0]?.info.lines ?? 1}`, field, `names "${name}", not a column of the header row: ${header.join(', ')}`);
    return index;
  };
  const cols = {
    date: column(mapping.date_column, 'date_column'),
    amount: column(mapping.amount_column, 'amount_column'),
    debit: column(mapping.debit_column, 'debit_column'),
    credit: column(mapping.credit_column, 'credit_column'),
    currency: column(mapping.currency_column, 'currency_column'),
    reference: column(mapping.reference_column, 'reference_column'),
    description: column(mapping.description_column, 'description_column'),
    counterparty: column(mapping.counterparty_column, 'counterparty_column'),
  };
  const toDate = datePattern(mapping.date_format ?? 'yyyy-MM-dd');
  const byCurrency = new Map<string, StatementEntry[]>();
  for (const { record, info } of rows.slice(1)) {
    const where = `line ${info.lines}`;
    const cell = (index: number) => (index === -1 ? '' : (record[index] ?? '').trim());
    const currency = (cols.currency !== -1 ? cell(cols.currency) : mapping.currency ?? '').toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) throw invalidStatement(where, mapping.currency_column ?? 'currency', `is not a currency code ("${currency}")`);
    let amount: bigint;
    const minor = (value: string, field: string | undefined) => (value ? BigInt(toMinorUnits(normalizeDecimal(value, mapping), currency, where, field ?? '')) : 0n);
    if (cols.amount !== -1) {
      amount = minor(cell(cols.amount), mapping.amount_column);
    } else {
      const debitMinor = minor(cell(cols.debit), mapping.debit_column);
      const creditMinor = minor(cell(cols.credit), mapping.credit_column);
      // Debit columns hold the outflow, usually unsigned; a signed one keeps its sign's meaning.
      amount = creditMinor - (debitMinor < 0n ? -debitMinor : debitMinor);
    }
    const reference = cell(cols.reference);
    if (!reference) throw invalidStatement(where, mapping.reference_column, 'is empty; each row needs the bank reference');
    const date = toDate(cell(cols.date), where, mapping.date_column);
    const list = byCurrency.get(currency) ?? [];
    list.push({
      external_id: reference,
      amount: amount.toString(),
      currency,
      booking_date: date,
      value_date: date,
      raw: { counterparty: cell(cols.counterparty) || null, remittance: cell(cols.description) || null },
      reference: null,
    });
    byCurrency.set(currency, list);
  }
  return [...byCurrency].map(([currency, entries]) => {
    const dates = entries.map((e) => e.booking_date).sort();
    return { account_reference: mapping.account_reference ?? 'csv', currency, from: dates[0] ?? null, to: dates[dates.length - 1] ?? null, opening_balance: null, closing_balance: null, entries };
  });
}
