import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ParsedStatement, compactDate, invalidStatement, toMinorUnits } from './statement';
import { child, XmlNode } from './xml-node';


const ARRAYS = new Set(['STMTTRNRS', 'CCSTMTTRNRS', 'STMTTRN']);

const xml = new XMLParser({ parseTagValue: false, trimValues: true, isArray: (name) => ARRAYS.has(name) });

/**
 * OFX 1.x is SGML: leaf elements (`<TRNAMT>-12.50`) need not close. Closing them here turns it into
 * XML, so both versions go through one parser. Headers (`OFXHEADER:100`, `<?xml ...?>`, `<?OFX ...?>`) are dropped.
 */
function toXml(text: string): string {
  const start = text.search(/<OFX>/i);
  if (start === -1) throw invalidStatement('line 1', 'OFX', 'root element is missing');
  const body = text.slice(start);
  return body.replace(/<([A-Za-z0-9.]+)>([^<]*)/g, (whole, tag: string, value: string, offset: number) => {
    const trimmed = value.trim();
    if (!trimmed) return whole;
    const after = body.slice(offset + whole.length, offset + whole.length + tag.length + 3);
    return after.toUpperCase() === `</${tag.toUpperCase()}>` ? whole : `<${tag}>${trimmed}</${tag}>`;
  });
}

function str(node: unknown, ...path: string[]): string | null {
  const value = child(node, ...path);
  return typeof value === 'string' && value.length ? value : null;
}

function list(value: unknown): XmlNode[] {
  return Array.isArray(value) ? (value as XmlNode[]) : value === undefined ? [] : [value as XmlNode];
}

/** OFX dates are `YYYYMMDD[HHMMSS[.XXX]][[offset:TZ]]`; the day is what a statement needs. */
function day(value: string | null, where: string, field: string): string | null {
  return value === null ? null : compactDate(value.slice(0, 8), where, field);
}

function amount(value: string | null, currency: string, where: string, field: string): string {
  if (value === null) throw invalidStatement(where, field, 'is missing');
  // Some banks write a decimal comma; OFX has no thousands separator.
  return toMinorUnits(value.includes('.') ? value : value.replace(',', '.'), currency, where, field);
}

/** OFX 1.x (SGML) and 2.x (XML) bank and credit-card statements: STMTTRN entries and LEDGERBAL. */
export function parseOfx(text: string): ParsedStatement[] {
  const converted = toXml(text);
  const valid = XMLValidator.validate(converted);
  if (valid !== true) throw invalidStatement(`OFX line ${valid.err.line}`, 'OFX', `is malformed (${valid.err.msg})`);
  const doc = xml.parse(converted) as XmlNode;
  const responses = [
    ...list(child(doc, 'OFX', 'BANKMSGSRSV1', 'STMTTRNRS')).map((r, i) => ({ rs: child(r, 'STMTRS'), acct: 'BANKACCTFROM', where: `OFX/BANKMSGSRSV1/STMTTRNRS[${i}]/STMTRS` })),
    ...list(child(doc, 'OFX', 'CREDITCARDMSGSRSV1', 'CCSTMTTRNRS')).map((r, i) => ({ rs: child(r, 'CCSTMTRS'), acct: 'CCACCTFROM', where: `OFX/CREDITCARDMSGSRSV1/CCSTMTTRNRS[${i}]/CCSTMTRS` })),
  ];
  if (responses.length === 0) throw invalidStatement('OFX', 'STMTRS', 'no bank or credit-card statement response');
  return responses.map(({ rs, acct, where }) => {
    const currency = str(rs, 'CURDEF');
    if (currency === null) throw invalidStatement(where, 'CURDEF', 'is missing');
    const account = str(rs, acct, 'ACCTID');
    if (account === null) throw invalidStatement(`${where}/${acct}`, 'ACCTID', 'is missing');
    const entries = list(child(rs, 'BANKTRANLIST', 'STMTTRN')).map((trn, n) => {
      const at = `${where}/BANKTRANLIST/STMTTRN[${n}]`;
      const fitid = str(trn, 'FITID');
      if (fitid === null) throw invalidStatement(at, 'FITID', 'is missing');
      const posted = day(str(trn, 'DTPOSTED'), at, 'DTPOSTED');
      if (posted === null) throw invalidStatement(at, 'DTPOSTED', 'is missing');
      const check = str(trn, 'CHECKNUM');
      return {
        external_id: fitid,
        amount: amount(str(trn, 'TRNAMT'), currency, at, 'TRNAMT'),
        currency: str(trn, 'CURRENCY', 'CURSYM') ?? currency,
        booking_date: posted,
        value_date: day(str(trn, 'DTUSER'), at, 'DTUSER') ?? posted,
        raw: { counterparty: str(trn, 'NAME') ?? str(trn, 'PAYEE', 'NAME'), remittance: str(trn, 'MEMO') },
        reference: check ? { rail: 'check', kind: 'check_number', value: check } : null,
      };
    });
    const ledger = child(rs, 'LEDGERBAL');
    return {
      account_reference: account,
      currency,
      from: day(str(rs, 'BANKTRANLIST', 'DTSTART'), where, 'BANKTRANLIST/DTSTART'),
      to: day(str(ledger, 'DTASOF') ?? str(rs, 'BANKTRANLIST', 'DTEND'), where, 'LEDGERBAL/DTASOF'),
      opening_balance: null,
      closing_balance: ledger === undefined ? null : amount(str(ledger, 'BALAMT'), currency, `${where}/LEDGERBAL`, 'BALAMT'),
      entries,
    };
  });
}
