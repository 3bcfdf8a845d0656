import { CURRENCY_PATTERN, normalizeCurrency } from '../accounts/currencies';
import { MAX_AMOUNT_DIGITS } from '../balances/money';

/** One row to ingest, checked and normalized. */
export interface IngestRow {
  externalId: string;
  amount: string;
  currency: string;
  occurredAt: Date;
  accountId: string | null;
  referenceRail: string | null;
  referenceKind: string | null;
  referenceValue: string | null;
  raw: unknown;
}

/** Why one item was refused; the other items of the call still land. */
export interface IngestItemError {
  code: 'invalid_request';
  message: string;
  param: string;
}

const SIGNED_DIGITS = /^-?\d+$/;
const REFERENCE_FIELDS = ['reference_rail', 'reference_kind', 'reference_value'] as const;
/** ISO 8601 date or date-time; Date.parse alone also takes forms like "March 7". */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function text(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.length >= 1 && value.length <= max ? value : null;
}

/** A signed amount of minor units (digit string or safe integer, not zero), as a decimal string. */
function signedAmount(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value !== 0 ? String(value) : null;
  if (typeof value !== 'string' || value.length > MAX_AMOUNT_DIGITS + 1 || !SIGNED_DIGITS.test(value)) return null;
  const amount = BigInt(value);
  return amount === 0n ? null : amount.toString();
}

function instant(value: unknown): Date | null {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Checks one ingest item: `external_id`, a signed non-zero `amount`, `currency`, `occurred_at` (or
 * its alias `at`), optional `account_id`, the reference triple (all or none) and `raw`. Returns the
 * row, or the first problem with `param` naming the field (`items[3].amount`).
 */
export function parseIngestItem(item: unknown, index: number): IngestRow | IngestItemError {
  const fail = (field: string, message: string): IngestItemError => ({ code: 'invalid_request', message, param: `items[${index}].${field}` });
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return { code: 'invalid_request', message: 'each item must be an object', param: `items[${index}]` };
  }
  const i = item as Record<string, unknown>;
  const externalId = text(i.external_id, 255);
  if (externalId === null) return fail('external_id', 'external_id must be a string of 1 to 255 characters');
  const amount = signedAmount(i.amount);
  if (amount === null) return fail('amount', 'amount must be a non-zero signed integer of minor units (string or integer)');
  if (typeof i.currency !== 'string' || !CURRENCY_PATTERN.test(i.currency)) return fail('currency', 'currency must be a currency code');
  const when = i.occurred_at ?? i.at;
  const occurredAt = instant(when);
  if (occurredAt === null) return fail(i.occurred_at === undefined ? 'at' : 'occurred_at', 'occurred_at (or at) must be an ISO 8601 timestamp');
  let accountId: string | null = null;
  if (i.account_id !== undefined && i.account_id !== null) {
    accountId = text(i.account_id, 255);
    if (accountId === null) return fail('account_id', 'account_id must be a string of 1 to 255 characters');
  }
  const given = REFERENCE_FIELDS.filter((f) => i[f] !== undefined && i[f] !== null);
  const absent = REFERENCE_FIELDS.filter((f) => !given.includes(f));
  if (given.length !== 0 && absent.length !== 0) {
    return fail(absent[0], 'reference_rail, reference_kind and reference_value go together');
  }
  for (const f of given) {
    if (text(i[f], 255) === null) return fail(f, `${f} must be a string of 1 to 255 characters`);
  }
  return {
    externalId,
    amount,
    currency: normalizeCurrency(i.currency),
    occurredAt,
    accountId,
    referenceRail: given.length ? (i.reference_rail as string) : null,
    referenceKind: given.length ? (i.reference_kind as string) : null,
    referenceValue: given.length ? (i.reference_value as string) : null,
    raw: i.raw ?? null,
  };
}

export function isIngestError(parsed: IngestRow | IngestItemError): parsed is IngestItemError {
  return 'code' in parsed;
}
