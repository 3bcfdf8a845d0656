import { parseBai2 } from './bai2.parser';
import { parseCamt053 } from './camt053.parser';
import { CsvMapping, parseCsv } from './csv.parser';
import { parseMt940 } from './mt940.parser';
import { parseOfx } from './ofx.parser';
import { ParsedStatement, StatementFormat } from './statement';

/** The format a file's first bytes announce; anything unrecognised is read as CSV. */
export function detectFormat(text: string): StatementFormat {
  const head = text.slice(0, 4096).replace(/^\uFEFF/, '').trimStart();
  if (/^OFXHEADER/i.test(head) || /<\?OFX/i.test(head) || /^<OFX>/i.test(head)) return 'ofx';
  if (head.startsWith('<') && /camt\.053|BkToCstmrStmt/.test(head)) return 'camt053';
  if (/^01,/.test(head)) return 'bai2';
  if (/^(\{1:|:20:)/.test(head) || /(^|\n):20:/.test(head)) return 'mt940';
  return 'csv';
}

export function parseStatement(text: string, format: StatementFormat, csvMapping: CsvMapping | null): ParsedStatement[] {
  switch (format) {
    case 'camt053':
      return parseCamt053(text);
    case 'mt940':
      return parseMt940(text);
    case 'bai2':
      return parseBai2(text);
    case 'ofx':
      return parseOfx(text);
    case 'csv':
      return parseCsv(text, csvMapping);
  }
}
