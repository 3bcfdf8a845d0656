import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { ApiError } from '@bursar/errors';
import { EntryBatch, StatementEntry, StatementReader, StatementSummary, invalidStatement, isoDate, negate, toMinorUnits } from './statement';
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

/** A name without its namespace prefix (`ns:Ntry` is `Ntry`); runs for every tag, so it allocates no array. */
function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/**
 * An element's value: its text when it has no children (with `@attr` and `#text` when it has
 * attributes), else its children. Built in place, as it runs for every element of the file.
 */
function valueOf(b: Building): unknown {
  let withAttributes: XmlNode | null = null;
  for (const name in b.attributes) (withAttributes ??= {})[`@${localName(name)}`] = b.attributes[name];
  for (const _child in b.node) return withAttributes ? Object.assign(withAttributes, b.node) : b.node;
  const text = b.text.trim();
  if (!withAttributes) return text;
  withAttributes['#text'] = text;
  return withAttributes;
}

function attach(parent: XmlNode, name: string, value: unknown) {
  const existing = parent[name];
  // attach made every array here, so it may grow them in place.
  if (Array.isArray(existing)) existing.push(value);
  else if (ARRAYS.has(name)) parent[name] = existing === undefined ? [value] : [existing, value];
  else parent[name] = existing === undefined ? value : [existing, value];
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
  /** Known once Acct has closed (it precedes the entries in the schema); entries wait for it. */
  account: string | null;
  /** Parsed entries not yet yielded. */
  pending: StatementEntry[];
  entryCount: number;
  firstCurrency: string | null;
}

function accountOf(acct: XmlNode, where: string): string {
  const account = str(acct, 'Id', 'IBAN') ?? str(acct, 'Id', 'Othr', 'Id');
  if (account === null) throw invalidStatement(`${where}/Acct`, 'Id', 'is missing');
  return account;
}

function finishStatement(stmt: OpenStatement): StatementSummary {
  const where = `Document/BkToCstmrStmt/Stmt[${stmt.index}]`;
  const holder = { Acct: stmt.acct, FrToDt: stmt.frToDt, Bal: stmt.bals };
  const account = stmt.account ?? accountOf(stmt.acct, where);
  const opening = balance(holder, ['OPBD', 'PRCD'], where);
  const closing = balance(holder, ['CLBD'], where);
  const currency = str(holder, 'Acct', 'Ccy') ?? stmt.firstCurrency;
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
    entry_count: stmt.entryCount,
  };
}

/**
 * Bytes decoded and handed to the XML parser at a time; the entries they complete are yielded
 * before the next slice. 64 KB keeps each slice's text, which the entries' strings point into, a
 * small young-generation string rather than a large object that only a full collection frees.
 */
const SLICE_BYTES = 1 << 16;

/**
 * ISO 20022 camt.053 (Bank-to-Customer Statement), any namespace version with the .001.08 layout.
 * Read as a stream of tags over slices of the file: each entry is built as a small tree, turned
 * into a statement entry and the tree dropped, and entries leave in batches of `batchSize`, so
 * neither the document, its decoded text nor its entries are ever held whole.
 */
export function* readCamt053(file: Buffer, batchSize: number): StatementReader {
  const parser = new SaxesParser({ position: true });
  const path: string[] = [];
  const summaries: StatementSummary[] = [];
  const ready: EntryBatch[] = [];
  const building: Building[] = [];
  let stmt: OpenStatement | null = null;
  const flush = (open: OpenStatement, account: string) => {
    if (open.pending.length) ready.push({ statement: open.index, account_reference: account, entries: open.pending });
    open.pending = [];
  };
  const appendText = (t: string) => {
    if (building.length) building[building.length - 1].text += t;
  };
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    path.push(name);
    if (building.length || (stmt && path.length === 4 && SUBTREES.has(name))) {
      building.push({ name, node: {}, attributes: tag.attributes as Record<string, string>, text: '' });
    } else if (path.length === 3 && name === 'Stmt' && path[0] === 'Document' && path[1] === 'BkToCstmrStmt') {
      stmt = { index: summaries.length, acct: {}, frToDt: {}, bals: [], account: null, pending: [], entryCount: 0, firstCurrency: null };
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
      const where = `Document/BkToCstmrStmt/Stmt[${open.index}]`;
      if (name === 'Ntry') {
        const parsed = entry(value as XmlNode, `${where}/Ntry[${open.entryCount}]`);
        open.firstCurrency ??= parsed.currency;
        open.pending.push(parsed);
        open.entryCount++;
        if (open.account !== null && open.pending.length >= batchSize) flush(open, open.account);
      } else if (name === 'Bal') open.bals.push(value as XmlNode);
      else if (name === 'Acct') {
        open.acct = value as XmlNode;
        open.account = accountOf(open.acct, where);
      } else open.frToDt = value as XmlNode;
    } else if (name === 'Stmt' && stmt) {
      const summary = finishStatement(stmt);
      flush(stmt, summary.account_reference);
      summaries.push(summary);
      stmt = null;
    }
  });
  const decoder = new StringDecoder('utf8');
  const feed = (text: string, last: boolean) => {
    try {
      parser.write(text);
      if (last) parser.close();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw invalidStatement(`line ${parser.line}`, 'XML', `is malformed (${error instanceof Error ? error.message : String(error)})`);
    }
  };
  for (let at = 0; at < file.length; at += SLICE_BYTES) {
    feed(decoder.write(file.subarray(at, at + SLICE_BYTES)), false);
    yield* ready.splice(0);
  }
  feed(decoder.end(), true);
  yield* ready.splice(0);
  if (summaries.length === 0) throw invalidStatement('Document/BkToCstmrStmt', 'Stmt', 'is missing');
  return summaries;
}
