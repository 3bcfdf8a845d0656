import { ACCOUNT_ID_PATTERN } from '../../accounts/account-kinds';
import { CURRENCY_PATTERN } from '../../accounts/currencies';
import { isMinorUnits } from '../../balances/money';
import { CreateTransactionDto, isStringMap, PostingInputDto } from './create-transaction.dto';

/*
 * The fast path of POST /transactions' body (class-validator and class-transformer cost more per
 * request than the rest of the route's own code). It accepts only the common shape, each field
 * checked by the same rule as the DTO's decorators; anything else (value_date, external_refs,
 * conditions, a null optional, an unknown field, any doubt) returns undefined and the DTO's full
 * validation runs, so every error envelope still comes from it.
 */

const TOP_LEVEL = new Set(['postings', 'metadata', 'dry_run']);
const POSTING = new Set(['account', 'amount', 'currency', 'direction', 'pending', 'tags']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyKeys(v: Record<string, unknown>, allowed: Set<string>): boolean {
  for (const key in v) if (!allowed.has(key) || v[key] === null) return false;
  return true;
}

function acceptPosting(p: unknown): PostingInputDto | undefined {
  if (!isPlainObject(p) || !onlyKeys(p, POSTING)) return undefined;
  const valid =
    typeof p.account === 'string' && ACCOUNT_ID_PATTERN.test(p.account) &&
    isMinorUnits(p.amount, 1n) &&
    typeof p.currency === 'string' && CURRENCY_PATTERN.test(p.currency) &&
    (p.direction === 'debit' || p.direction === 'credit') &&
    (p.pending === undefined || typeof p.pending === 'boolean') &&
    (p.tags === undefined || isStringMap(p.tags));
  return valid ? Object.assign(new PostingInputDto(), p) : undefined;
}

export function acceptCreateTransaction(body: unknown): CreateTransactionDto | undefined {
  if (!isPlainObject(body) || !onlyKeys(body, TOP_LEVEL)) return undefined;
  const { postings, metadata, dry_run } = body;
  if (!Array.isArray(postings) || postings.length < 2 || postings.length > 250) return undefined;
  if (metadata !== undefined && (!isPlainObject(metadata) || Object.prototype.hasOwnProperty.call(metadata, '__proto__'))) return undefined;
  if (dry_run !== undefined && typeof dry_run !== 'boolean') return undefined;
  const accepted: PostingInputDto[] = [];
  for (const p of postings) {
    const posting = acceptPosting(p);
    if (!posting) return undefined;
    accepted.push(posting);
  }
  return Object.assign(new CreateTransactionDto(), body, { postings: accepted });
}
