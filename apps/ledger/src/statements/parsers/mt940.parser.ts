import { ParsedStatement, StatementEntry, compactDate, invalidStatement, negate, toMinorUnits } from './statement';

interface Field {
  tag: string;
  value: string;
  line: number;
}

/** Splits the text into `:tag:value` fields; lines not starting a tag continue the previous field. */
function fields(text: string): Field[] {
  const out: Field[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/\s+$/, '');
    const tagged = /^:(\d{2}[A-Z]?):(.*)$/.exec(line);
    if (tagged) out.push({ tag: tagged[1], value: tagged[2], line: i + 1 });
    else if (line === '-' || line === '' || line.startsWith('{') || line.startsWith('-}')) return;
    else if (out.length) out[out.length - 1].value += `\n${line}`;
    else throw invalidStatement(`line ${i + 1}`, 'field', 'is outside any :tag: (expected :20:)');
  });
  return out;
}

const BALANCE = /^([CD])(\d{6})([A-Z]{3})(\d+,\d*)$/;
/** :61: value date, entry date (MMDD), mark (C, D, RC, RD), funds code, amount, type, owner's reference, //bank reference. */
const LINE_61 = /^(\d{6})(\d{4})?(R?[CD])([A-Z])?(\d+,\d*)([NSF][A-Z0-9]{3})(.*?)(?:\/\/(.*))?$/;

function amountOf(value: string, currency: string, where: string, field: string): string {
  return toMinorUnits(value.replace(',', '.'), currency, where, field);
}

function balanceOf(field: Field): { amount: string; date: string; currency: string } {
  const where = `line ${field.line}`;
  const m = BALANCE.exec(field.value.trim());
  if (!m) throw invalidStatement(where, `:${field.tag}:`, 'must be mark, YYMMDD, currency and amount');
  const minor = amountOf(m[4], m[3], where, `:${field.tag}:`);
  return { amount: m[1] === 'D' ? negate(minor) : minor, date: compactDate(m[2], where, `:${field.tag}:`), currency: m[3] };
}

/** `?32`/`?33` subfields of a structured :86: hold the counterparty name; everything else is remittance. */
function information(text: string): { counterparty: string | null; remittance: string | null } {
  const flat = text.replace(/\n/g, '');
  if (!/^\d{3}\?/.test(flat)) return { counterparty: null, remittance: text.replace(/\n/g, ' ').trim() || null };
  const parts = [...flat.matchAll(/\?(\d{2})([^?]*)/g)];
  const name = parts.filter((p) => p[1] === '32' || p[1] === '33').map((p) => p[2]).join('');
  const purpose = parts.filter((p) => Number(p[1]) >= 20 && Number(p[1]) <= 29 || Number(p[1]) >= 60 && Number(p[1]) <= 63).map((p) => p[2]).join('');
  return { counterparty: name || null, remittance: purpose || null };
}

/** SWIFT MT940 customer statement: one statement per :20: block, possibly several per file. */
export function parseMt940(text: string): ParsedStatement[] {
  const statements: ParsedStatement[] = [];
  let current: ParsedStatement | null = null;
  let startLine = 0;
  let last: StatementEntry | null = null;
  const finish = () => {
    if (!current) return;
    if (current.opening_balance === null) throw invalidStatement(`line ${startLine}`, ':60F:', 'is missing');
    if (current.closing_balance === null) throw invalidStatement(`line ${startLine}`, ':62F:', 'is missing');
    statements.push(current);
  };
  for (const field of fields(text)) {
    const where = `line ${field.line}`;
    if (field.tag === '20') {
      finish();
      startLine = field.line;
      current = { account_reference: '', currency: '', from: null, to: null, opening_balance: null, closing_balance: null, entries: [] };
      last = null;
      continue;
    }
    if (!current) throw invalidStatement(where, `:${field.tag}:`, 'comes before :20:');
    switch (field.tag) {
      case '25':
        current.account_reference = field.value.trim();
        break;
      case '28C':
      case '28':
        break;
      case '60F':
      case '60M': {
        const b = balanceOf(field);
        Object.assign(current, { opening_balance: b.amount, from: b.date, currency: b.currency });
        break;
      }
      case '62F':
      case '62M': {
        const b = balanceOf(field);
        Object.assign(current, { closing_balance: b.amount, to: b.date });
        break;
      }
      case '61': {
        if (!current.currency) throw invalidStatement(where, ':61:', 'comes before the opening balance :60F:');
        const [first, supplementary] = field.value.split('\n');
        const m = LINE_61.exec(first);
        if (!m) throw invalidStatement(where, ':61:', 'must be value date, mark, amount, type and reference');
        const valueDate = compactDate(m[1], where, ':61:');
        // The entry date carries no year: it is the value date's, or the next one's around New Year.
        let bookingDate = valueDate;
        if (m[2]) {
          const year = Number(valueDate.slice(0, 4)) + (valueDate.slice(5, 7) === '12' && m[2].startsWith('01') ? 1 : 0);
          bookingDate = compactDate(`${year}${m[2]}`, where, ':61:');
        }
        const minor = amountOf(m[5], current.currency, where, ':61:');
        const debit = m[3] === 'D' || m[3] === 'RC';
        const ownerRef = m[7].trim();
        const bankRef = m[8]?.trim();
        const externalId = bankRef || (ownerRef !== 'NONREF' ? ownerRef : '');
        if (!externalId) throw invalidStatement(where, ':61:', 'has neither a bank reference (//) nor an owner reference');
        last = {
          external_id: externalId,
          amount: debit ? negate(minor) : minor,
          currency: current.currency,
          booking_date: bookingDate,
          value_date: valueDate,
          raw: { counterparty: null, remittance: supplementary?.trim() || null },
          reference: ownerRef && ownerRef !== 'NONREF' && bankRef ? { rail: 'swift', kind: 'customer_reference', value: ownerRef } : null,
        };
        current.entries.push(last);
        break;
      }
      case '86': {
        // A :86: after a :61: describes that entry; one after the closing balance describes the statement.
        if (last) last.raw = information(field.value);
        break;
      }
      default:
        break;
    }
    if (field.tag !== '61' && field.tag !== '86') last = null;
  }
  finish();
  if (statements.length === 0) throw invalidStatement('line 1', ':20:', 'is missing');
  for (const s of statements) {
    if (!s.account_reference) throw invalidStatement('statement', ':25:', 'is missing');
  }
  return statements;
}
