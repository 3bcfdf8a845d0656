import { ParsedStatement, compactDate, invalidStatement } from './statement';

interface RecordLine {
  code: string;
  fields: string[];
  line: number;
  /** Physical records (the record and its 88 continuations), for the 49/98/99 counts. */
  physical: number;
}

/** Physical lines into logical records: an 88 continues the record before it. */
function records(text: string): RecordLine[] {
  const out: RecordLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    // A record continued by an 88 may end with the delimiter that closes its last field.
    const body = line.endsWith('/') ? line.slice(0, -1) : line.replace(/,$/, '');
    const comma = body.indexOf(',');
    const code = comma === -1 ? body : body.slice(0, comma);
    const rest = comma === -1 ? '' : body.slice(comma + 1);
    if (code === '88') {
      const prev = out[out.length - 1];
      if (!prev) throw invalidStatement(`line ${i + 1}`, '88', 'continues no record');
      // A detail's text is its last field, so its continuation extends that text; others add fields.
      if (prev.code === '16') prev.fields[prev.fields.length - 1] += ` ${rest}`;
      else prev.fields.push(...rest.split(','));
      prev.physical += 1;
      return;
    }
    if (!/^(01|02|03|16|49|98|99)$/.test(code)) throw invalidStatement(`line ${i + 1}`, 'record code', `"${code}" is not a BAI2 record type`);
    out.push({ code, fields: rest.split(','), line: i + 1, physical: 1 });
  });
  return out;
}

function signedInteger(value: string | undefined, where: string, field: string): bigint {
  if (value === undefined || !/^[+-]?\d+$/.test(value)) throw invalidStatement(where, field, `is not a whole amount ("${value ?? ''}")`);
  return BigInt(value);
}

/** Fields a funds type adds after it: V a date and time, S three amounts, D a count then pairs. */
function skipFunds(fields: string[], at: number, where: string): number {
  const type = fields[at] ?? '';
  if (type === 'V') return at + 3;
  if (type === 'S') return at + 4;
  if (type === 'D') return at + 2 + 2 * Number(signedInteger(fields[at + 1], where, 'funds distribution count'));
  return at + 1;
}

function expect(record: RecordLine, field: string, expected: bigint, actual: bigint) {
  if (expected !== actual) {
    throw invalidStatement(`line ${record.line}`, field, `says ${expected} but the records add up to ${actual}`);
  }
}

/**
 * BAI2 cash management file: 01 file header, 02 group (as-of date, currency), 03 account with
 * summary amounts, 16 transaction details, 88 continuations, and 49/98/99 trailers whose control
 * totals and record counts must match what precedes them.
 */
export function parseBai2(text: string): ParsedStatement[] {
  const recs = records(text);
  if (recs[0]?.code !== '01') throw invalidStatement('line 1', '01', 'file header is missing');
  const statements: ParsedStatement[] = [];
  let fileTotal = 0n, fileRecords = 0, groups = 0;
  let groupTotal = 0n, groupRecords = 0, accounts = 0;
  let accountTotal = 0n, accountRecords = 0;
  let asOf = '', groupCurrency = 'USD';
  let current: ParsedStatement | null = null;
  let closed = false;
  for (const rec of recs) {
    const where = `line ${rec.line}`;
    if (closed) throw invalidStatement(where, rec.code, 'follows the 99 file trailer');
    fileRecords += rec.physical;
    groupRecords += rec.physical;
    accountRecords += rec.physical;
    const f = rec.fields;
    switch (rec.code) {
      case '01':
        groupRecords = 0;
        break;
      case '02':
        groups += 1;
        groupTotal = 0n;
        groupRecords = rec.physical;
        accounts = 0;
        asOf = compactDate(f[3] ?? '', where, 'as-of date');
        groupCurrency = f[5] || 'USD';
        break;
      case '03': {
        accounts += 1;
        accountTotal = 0n;
        accountRecords = rec.physical;
        const currency = f[1] || groupCurrency;
        current = { account_reference: f[0], currency, from: asOf, to: asOf, opening_balance: null, closing_balance: null, entries: [] };
        if (!f[0]) throw invalidStatement(where, 'account number', 'is missing');
        for (let at = 2; at < f.length && f[at] !== ''; ) {
          const typeCode = f[at];
          const amount = f[at + 1] ? signedInteger(f[at + 1], where, `amount of summary ${typeCode}`) : null;
          if (amount !== null) accountTotal += amount;
          if (typeCode === '010' && amount !== null) current.opening_balance = amount.toString();
          if (typeCode === '015' && amount !== null) current.closing_balance = amount.toString();
          at = skipFunds(f, at + 3, where);
        }
        statements.push(current);
        break;
      }
      case '16': {
        if (!current) throw invalidStatement(where, '16', 'comes before any 03 account record');
        const typeCode = Number(f[0]);
        if (!(typeCode >= 100 && typeCode < 700)) throw invalidStatement(where, 'type code', `"${f[0]}" is not a transaction detail type (100-699)`);
        const amount = signedInteger(f[1], where, 'amount');
        accountTotal += amount;
        const at = skipFunds(f, 2, where);
        const bankRef = f[at] ?? '';
        const customerRef = f[at + 1] ?? '';
        const remittance = f.slice(at + 2).join(',').trim();
        const externalId = bankRef || customerRef;
        if (!externalId) throw invalidStatement(where, 'bank reference', 'is missing (and no customer reference identifies the entry)');
        current.entries.push({
          external_id: externalId,
          amount: (typeCode >= 400 ? -amount : amount).toString(),
          currency: current.currency,
          booking_date: asOf,
          value_date: asOf,
          raw: { counterparty: null, remittance: remittance || null },
          reference: typeCode === 475 && customerRef ? { rail: 'check', kind: 'check_number', value: customerRef } : null,
        });
        break;
      }
      case '49':
        expect(rec, 'account control total', signedInteger(f[0], where, 'account control total'), accountTotal);
        expect(rec, 'account record count', signedInteger(f[1], where, 'account record count'), BigInt(accountRecords));
        groupTotal += accountTotal;
        current = null;
        break;
      case '98':
        expect(rec, 'group control total', signedInteger(f[0], where, 'group control total'), groupTotal);
        expect(rec, 'group account count', signedInteger(f[1], where, 'group account count'), BigInt(accounts));
        expect(rec, 'group record count', signedInteger(f[2], where, 'group record count'), BigInt(groupRecords));
        fileTotal += groupTotal;
        break;
      case '99':
        expect(rec, 'file control total', signedInteger(f[0], where, 'file control total'), fileTotal);
        expect(rec, 'file group count', signedInteger(f[1], where, 'file group count'), BigInt(groups));
        expect(rec, 'file record count', signedInteger(f[2], where, 'file record count'), BigInt(fileRecords));
        closed = true;
        break;
    }
  }
  if (!closed) throw invalidStatement(`line ${recs[recs.length - 1].line}`, '99', 'file trailer is missing');
  return statements;
}
