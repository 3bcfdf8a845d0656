import { detectFormat } from './detect';
import { CsvMapping, datePattern, parseCsv } from './csv.parser';
import { checkMutations, expectInvalidStatement, refusal } from './refusal.test-helper';

export const CSV = `Kontoauszug Girokonto
Buchungstag;Betrag;Soll;Haben;Währung;Referenz;Verwendungszweck;Auftraggeber
03.11.2026;1.250,40;;;EUR;REF-1;"Rechnung 7; Grüße";Müller GmbH
04.11.2026;-45,00;;;eur;REF-2;Strom;Stadtwerke
`;

export const CSV_MAPPING: CsvMapping = {
  delimiter: ';', skip_rows: 1, date_column: 'Buchungstag', date_format: 'dd.MM.yyyy', amount_column: 'Betrag', currency_column: 'Währung',
  reference_column: 'Referenz', description_column: 'Verwendungszweck', counterparty_column: 'Auftraggeber', decimal_separator: ',', thousands_separator: '.',
};

describe('parseCsv', () => {
  it('reads rows through the mapping: separators, date pattern, quoted delimiters', () => {
    expect(detectFormat(CSV)).toBe('csv');
    expect(parseCsv(CSV, CSV_MAPPING)).toEqual([
      {
        account_reference: 'csv', currency: 'EUR', from: '2026-11-03', to: '2026-11-04', opening_balance: null, closing_balance: null,
        entries: [
          { external_id: 'REF-1', amount: '125040', currency: 'EUR', booking_date: '2026-11-03', value_date: '2026-11-03', raw: { counterparty: 'Müller GmbH', remittance: 'Rechnung 7; Grüße' }, reference: null },
          { external_id: 'REF-2', amount: '-4500', currency: 'EUR', booking_date: '2026-11-04', value_date: '2026-11-04', raw: { counterparty: 'Stadtwerke', remittance: 'Strom' }, reference: null },
        ],
      },
    ]);
  });

  it('reads debit and credit columns and a fixed currency', () => {
    const csv = 'Date,Debit,Credit,Ref\n11/3/26,,"1,000.5",A\n11/4/26,20.00,,B\n';
    const [statement] = parseCsv(csv, { date_column: 'Date', date_format: 'M/d/yy', debit_column: 'Debit', credit_column: 'Credit', currency: 'USD', reference_column: 'Ref', thousands_separator: ',' });
    expect(statement.entries.map((e) => [e.booking_date, e.amount, e.currency])).toEqual([['2026-11-03', '100050', 'USD'], ['2026-11-04', '-2000', 'USD']]);
  });

  it('refuses a file without a mapping, naming the header row it saw', () => {
    expectInvalidStatement(() => parseCsv('Date,Amount,Ref\n2026-11-03,1.00,A\n', null), /csv_mapping is not set.*header row: Date, Amount, Ref/);
  });

  it.each([
    ['an unknown column', { ...CSV_MAPPING, amount_column: 'Amount' }, CSV, /amount_column names "Amount", not a column of the header row: Buchungstag;?/],
    ['a date off pattern', CSV_MAPPING, CSV.replace('04.11.2026', '2026-11-04'), /line 4: Buchungstag does not match dd.MM.yyyy/],
    ['an empty reference', CSV_MAPPING, CSV.replace('REF-2', ''), /line 4: Referenz is empty/],
    ['a bad amount', CSV_MAPPING, CSV.replace('-45,00', 'abc'), /line 4: Betrag is not a decimal amount/],
  ])('refuses %s', (_name, mapping, text, message) => expectInvalidStatement(() => parseCsv(text, mapping), message));

  it('checks calendar dates', () => {
    expect(datePattern('yyyy-MM-dd')('2026-02-28', 'line 1', 'd')).toBe('2026-02-28');
    expect(refusal(() => datePattern('yyyy-MM-dd')('2026-02-30', 'line 1', 'd')).message).toMatch(/is not a date/);
  });

  it('reads or refuses (invalid_statement) every truncated and mutated file', () => {
    checkMutations((text: string) => parseCsv(text, CSV_MAPPING), CSV);
  });
});
