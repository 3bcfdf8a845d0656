import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ParsedStatement, StatementEntry, invalidStatement, isoDate, negate, toMinorUnits } from './statement';

type Node = Record<string, unknown>;

const ARRAYS = new Set(['Stmt', 'Bal', 'Ntry', 'TxDtls', 'Ustrd']);

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ARRAYS.has(name),
});

function child(node: unknown, ...path: string[]): unknown {
  let at: unknown = node;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Node)[key];
  }
  return at;
}

function str(node: unknown, ...path: string[]): string | null {
  const value = child(node, ...path);
  if (typeof value === 'string') return value.length ? value : null;
  if (value !== null && typeof value === 'object' && typeof (value as Node)['#text'] === 'string') return (value as Node)['#text'] as string;
  return null;
}

function list(node: unknown, ...path: string[]): Node[] {
  const value = child(node, ...path);
  return Array.isArray(value) ? (value as Node[]) : value === undefined ? [] : [value as Node];
}

/** An `Amt` with its `Ccy` attribute and the sibling `CdtDbtInd`, signed: debits negative. */
function signedAmount(holder: Node, where: string): { amount: string; currency: string } {
  const amt = child(holder, 'Amt');
  const value = str(holder, 'Amt');
  const currency = amt !== null && typeof amt === 'object' ? (amt as Node)['@Ccy'] : undefined;
  if (value === null) throw invalidStatement(where, 'Amt', 'is missing');
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) throw invalidStatement(where, 'Amt/@Ccy', 'must be a currency code');
  const indicator = str(holder, 'CdtDbtInd');
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw invalidStatement(where, 'CdtDbtInd', 'must be CRDT or DBIT');
  const minor = toMinorUnits(value, currency, where, 'Amt');
  return { amount: indicator === 'DBIT' ? negate(minor) : minor, currency };
}

function dateOf(node: unknown, where: string, field: string): string | null {
  const value = str(node, 'Dt') ?? str(node, 'DtTm');
  return value === null ? null : isoDate(value, where, field);
}

function partyName(details: Node, role: 'Dbtr' | 'Cdtr'): string | null {
  // camt.053.001.08 nests the party under Pty; earlier versions put Nm directly under the role.
  return str(details, 'RltdPties', role, 'Pty', 'Nm') ?? str(details, 'RltdPties', role, 'Nm');
}

function entry(ntry: Node, where: string): StatementEntry {
  const { amount, currency } = signedAmount(ntry, where);
  const details = list(ntry, 'NtryDtls', 'TxDtls')[0] ?? {};
  const externalId = str(ntry, 'AcctSvcrRef') ?? str(details, 'Refs', 'AcctSvcrRef') ?? str(ntry, 'NtryRef');
  if (externalId === null) throw invalidStatement(where, 'AcctSvcrRef', 'is missing (and no NtryRef identifies the entry)');
  const bookingDate = dateOf(child(ntry, 'BookgDt'), where, 'BookgDt');
  if (bookingDate === null) throw invalidStatement(where, 'BookgDt', 'is missing');
  // A credit's counterparty is its debtor; a debit's is its creditor.
  const counterparty = partyName(details, amount.startsWith('-') ? 'Cdtr' : 'Dbtr');
  const remittance = list(details, 'RmtInf', 'Ustrd')
    .map((line) => (typeof line === 'string' ? line : str(line, '#text')))
    .filter((line): line is string => !!line)
    .join(' ');
  const endToEnd = str(details, 'Refs', 'EndToEndId');
  return {
    external_id: externalId,
    amount,
    currency,
    booking_date: bookingDate,
    value_date: dateOf(child(ntry, 'ValDt'), where, 'ValDt'),
    raw: { counterparty, remittance: remittance || null },
    reference: endToEnd && endToEnd !== 'NOTPROVIDED' ? { rail: 'iso20022', kind: 'end_to_end_id', value: endToEnd } : null,
  };
}

function balance(stmt: Node, codes: string[], where: string): { amount: string; date: string | null } | null {
  const found = list(stmt, 'Bal').find((bal) => codes.includes(str(bal, 'Tp', 'CdOrPrtry', 'Cd') ?? ''));
  if (!found) return null;
  return { amount: signedAmount(found, `${where}/Bal`).amount, date: dateOf(child(found, 'Dt'), `${where}/Bal`, 'Dt') };
}

/** ISO 20022 camt.053 (Bank-to-Customer Statement), any namespace version with the .001.08 layout. */
export function parseCamt053(text: string): ParsedStatement[] {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw invalidStatement(`line ${valid.err.line}`, 'XML', `is malformed (${valid.err.msg})`);
  const doc = xml.parse(text) as Node;
  const statements = list(doc, 'Document', 'BkToCstmrStmt', 'Stmt');
  if (statements.length === 0) throw invalidStatement('Document/BkToCstmrStmt', 'Stmt', 'is missing');
  return statements.map((stmt, s) => {
    const where = `Document/BkToCstmrStmt/Stmt[${s}]`;
    const account = str(stmt, 'Acct', 'Id', 'IBAN') ?? str(stmt, 'Acct', 'Id', 'Othr', 'Id');
    if (account === null) throw invalidStatement(`${where}/Acct`, 'Id', 'is missing');
    const entries = list(stmt, 'Ntry').map((ntry, n) => entry(ntry, `${where}/Ntry[${n}]`));
    const opening = balance(stmt, ['OPBD', 'PRCD'], where);
    const closing = balance(stmt, ['CLBD'], where);
    const currency = str(stmt, 'Acct', 'Ccy') ?? entries[0]?.currency ?? null;
    if (currency === null) throw invalidStatement(`${where}/Acct`, 'Ccy', 'is missing');
    const from = str(stmt, 'FrToDt', 'FrDtTm');
    const to = str(stmt, 'FrToDt', 'ToDtTm');
    return {
      account_reference: account,
      currency,
      from: from ? isoDate(from, where, 'FrToDt/FrDtTm') : (opening?.date ?? null),
      to: to ? isoDate(to, where, 'FrToDt/ToDtTm') : (closing?.date ?? null),
      opening_balance: opening?.amount ?? null,
      closing_balance: closing?.amount ?? null,
      entries,
    };
  });
}
