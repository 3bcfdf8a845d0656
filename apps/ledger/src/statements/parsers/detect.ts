import { parseBai2 } from './bai2.parser';
import { readCamt053 } from './camt053.parser';
import { CsvMapping, parseCsv } from './csv.parser';
import { parseMt940 } from './mt940.parser';
import { parseOfx } from './ofx.parser';
import { inBatches, StatementFormat, StatementReader } from './statement';

/** The format a file's first bytes announce; anything unrecognised is read as CSV. */
export function detectFormat(text: string): StatementFormat {
  const head = text.slice(0, DETECT_BYTES).replace(/^\uFEFF/, '').trimStart();
  if (/^OFXHEADER/i.test(head) || /<\?OFX/i.test(head) || /^<OFX>/i.test(head)) return 'ofx';
  if (head.startsWith('<') && /camt\.053|BkToCstmrStmt/.test(head)) return 'camt053';
  if (/^01,/.test(head)) return 'bai2';
  if (/^(\{1:|:20:)/.test(head) || /(^|\n):20:/.test(head)) return 'mt940';
  return 'csv';
}

/** Bytes of a file's head that format detection looks at. */
export const DETECT_BYTES = 4096;

/**
 * The file read in entry batches of `batchSize`. camt.053 (the large files) streams; the
 * line-based formats are parsed whole from the decoded text, then handed out in batches.
 */
export function readStatement(file: Buffer, format: StatementFormat, csvMapping: CsvMapping | null, batchSize: number): StatementReader {
  switch (format) {
    case 'camt053':
      return readCamt053(file, batchSize);
    case 'mt940':
      return inBatches(parseMt940(file.toString('utf8')), batchSize);
    case 'bai2':
      return inBatches(parseBai2(file.toString('utf8')), batchSize);
    case 'ofx':
      return inBatches(parseOfx(file.toString('utf8')), batchSize);
    case 'csv':
      return inBatches(parseCsv(file.toString('utf8'), csvMapping), batchSize);
  }
}
