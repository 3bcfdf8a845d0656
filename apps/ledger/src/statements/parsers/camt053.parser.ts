import { SaxesParser } from 'saxes';
import { ApiError } from '@bursar/errors';
import { ParsedStatement, StatementEntry, invalidStatement, isoDate, negate, toMinorUnits } from './statement';
import { child, XmlNode } from './xml-node';


/** Elements that may repeat, always read as lists. */
const ARRAYS = new Set(['Bal', 'Ntry', 'TxDtls', 'Ustrd']);
/** Children of a Stmt that are built as small trees and read whole; nothing else of the file is kept. */
const SUBTREES = new Set(['Acct', 'FrToDt', 'Bal', 'Ntry']);

interface Building {
  name: string;
  node: XmlNode;
  attributes: Record<string, string>;
  text: string;
}

/** An element's value: its text when it has no children (with `@attr` and `#text` when it has attributes), else its children. */
function valueOf(b: Building): unknown {
  const attributes = Object.fromEntries(Object.entries(b.attributes).map(([k, v]) => [`@${k.split(':').pop()}`, v]));
  if (Object.keys(b.node).length === 0) {
    const text = b.text.trim();
    return Object.keys(attributes).length ? { ...attributes, '#text': text } : text;
  }
  return { ...attributes, ...b.node };
}

function attach(parent: XmlNode, name: string, value: unknown) {
  const existing = parent[name];
  if (ARRAYS.has(name)) parent[name] = [...((existing as unknown[] | undefined) ?? []), value];
  else parent[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
}

function str(node: unknown, ...path: string[]): string | null {
  const value = child(node, ...path);
  if (typeof value === 'string') return value.length ? value : null;
  if (value !== null && typeof value === 'object' && typeof (value as XmlNode)['#text'] === 'string') return (value as XmlNode)['#text'] as string;
  return null;
}

function list(node: unknown, ...path: string[]): XmlNode[] {
  const value = child(node, ...path);
  return Array.isArray(value) ? (value as XmlNode[]) : value === undefined ? [] : [value as XmlNode];
}

/** An `Amt` with its `Ccy` attribute and the sibling `CdtDbtInd`, signed: debits negative. */
function signedAmount(holder: XmlNode, where: string): { amount: string; currency: string } {
  const amt = child(holder, 'Amt');
  const value = str(holder, 'Amt');
  const currency = amt !== null && typeof amt === 'object' ? (amt as XmlNode)['@Ccy'] : undefined;
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

function partyName(details: XmlNode, role: 'Dbtr' | 'Cdtr'): string | null {
  // camt.053.001.08 nests the party under Pty; earlier versions put Nm directly under the role.
  return str(details, 'RltdPties', role, 'Pty', 'Nm') ?? str(details, 'RltdPties', role, 'Nm');
}

function entry(ntry: XmlNode, where: string): StatementEntry {
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

function balance(stmt: XmlNode, codes: string[], where: string): { amount: string; date: string | null } | null {
  const found = list(stmt, 'Bal').find((bal) => codes.includes(str(bal, 'Tp', 'CdOrPrtry', 'Cd') ?? ''));
  if (!found) return null;
  return { amount: signedAmount(found, `${where}/Bal`).amount, date: dateOf(child(found, 'Dt'), `${where}/Bal`, 'Dt') };
}

interface OpenStatement {
  index: number;
  acct: XmlNode;
  frToDt: XmlNode;
  bals: XmlNode[];
  entries: StatementEntry[];
}

function finishStatement(stmt: OpenStatement): ParsedStatement {
  const where = `Document/BkToCstmrStmt/Stmt[${stmt.index}]`;
  const holder = { Acct: stmt.acct, FrToDt: stmt.frToDt, Bal: stmt.bals };
  const account = str(holder, 'Acct', 'Id', 'IBAN') ?? str(holder, 'Acct', 'Id', 'Othr', 'Id');
  if (account === null) throw invalidStatement(`${where}/Acct`, 'Id', 'is missing');
  const opening = balance(holder, ['OPBD', 'PRCD'], where);
  const closing = balance(holder, ['CLBD'], where);
  const currency = str(holder, 'Acct', 'Ccy') ?? stmt.entries[0]?.currency ?? null;
  if (currency === null) throw invalidStatement(`${where}/Acct`, 'Ccy', 'is missing');
  const from = str(holder, 'FrToDt', 'FrDtTm');
  const to = str(holder, 'FrToDt', 'ToDtTm');
  return {
    account_reference: account,
    currency,
    from: from ? isoDate(from, where, 'FrToDt/FrDtTm') : (opening?.date ?? null),
    to: to ? isoDate(to, where, 'FrToDt/ToDtTm') : (closing?.date ?? null),
    opening_balance: opening?.amount ?? null,
    closing_balance: closing?.amount ?? null,
    entries: stmt.entries,
  };
}

/**
 * ISO 20022 camt.053 (Bank-to-Customer Statement), any namespace version with the .001.08 layout.
 * Read as a stream of tags: each entry is built, turned into a statement entry and dropped, so a
 * 50 MB file never becomes a whole document tree.
 */
export function parseCamt053(text: string): ParsedStatement[] {
  const parser = new SaxesParser({ position: true });
  const path: string[] = [];
  const statements: ParsedStatement[] = [];
  const building: Building[] = [];
  let stmt: OpenStatement | null = null;
  const appendText = (t: string) => {
    if (building.length) building[building.length - 1].text += t;
  };
  parser.on('opentag', (tag) => {
    const name = tag.name.split(':').pop() ?? tag.name;
    path.push(name);
    if (building.length || (stmt && path.length === 4 && SUBTREES.has(name))) {
      building.push({ name, node: {}, attributes: tag.attributes as Record<string, string>, text: '' });
    } else if (path.length === 3 && name === 'Stmt' && path[0] === 'Document' && path[1] === 'BkToCstmrStmt') {
      stmt = { index: statements.length, acct: {}, frToDt: {}, bals: [], entries: [] };
    }
  });
  parser.on('text', appendText);
  parser.on('cdata', appendText);
  parser.on('closetag', () => {
    const name = path.pop();
    const done = building.pop();
    if (done) {
      const value = valueOf(done);
      if (building.length) return attach(building[building.length - 1].node, done.name, value);
      const open = stmt as OpenStatement;
      if (name === 'Ntry') open.entries.push(entry(value as XmlNode, `Document/BkToCstmrStmt/Stmt[${open.index}]/Ntry[${open.entries.length}]`));
      else if (name === 'Bal') open.bals.push(value as XmlNode);
      else if (name === 'Acct') open.acct = value as XmlNode;
      else open.frToDt = value as XmlNode;
    } else if (name === 'Stmt' && stmt) {
      statements.push(finishStatement(stmt));
      stmt = null;
    }
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw invalidStatement(`line ${parser.line}`, 'XML', `is malformed (${error instanceof Error ? error.message : String(error)})`);
  }
  if (statements.length === 0) throw invalidStatement('Document/BkToCstmrStmt', 'Stmt', 'is missing');
  return statements;
}
