import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CreateTransactionDto } from './create-transaction.dto';
import { acceptCreateTransaction } from './create-transaction.validator';

const posting = (extra: object = {}) => ({ account: 'cash', amount: '125', currency: 'USD', direction: 'debit', ...extra });
const valid = { postings: [posting(), posting({ direction: 'credit', amount: 125 })] };

/** What the global ValidationPipe does with the body: the fast path must never disagree with it. */
function fullValidation(body: unknown) {
  const instance = plainToInstance(CreateTransactionDto, body);
  const errors = validateSync(instance as object, { whitelist: true, forbidNonWhitelisted: true });
  return { instance, errors };
}

describe('acceptCreateTransaction (fast path of the transaction body)', () => {
  it.each([
    ['two postings', valid],
    ['metadata, dry_run, pending and tags', { ...valid, metadata: { a: { b: [1] } }, dry_run: false, postings: [posting({ pending: true, tags: { k: 'v' } }), posting()] }],
  ])('accepts %s exactly as class-validator/class-transformer would', (_name, body) => {
    const accepted = acceptCreateTransaction(body);
    const { instance, errors } = fullValidation(body);
    expect(errors).toEqual([]);
    expect(accepted).toBeInstanceOf(CreateTransactionDto);
    expect(accepted).toEqual(instance);
  });

  it.each([
    ['one posting', { postings: [posting()] }],
    ['an unknown field', { ...valid, memo: 'x' }],
    ['an unknown posting field', { postings: [posting({ memo: 'x' }), posting()] }],
    ['a float amount', { postings: [posting({ amount: 1.5 }), posting()] }],
    ['a zero amount', { postings: [posting({ amount: '0' }), posting()] }],
    ['a bad direction', { postings: [posting({ direction: 'up' }), posting()] }],
    ['a bad account id', { postings: [posting({ account: 'a b' }), posting()] }],
    ['non-string tags', { postings: [posting({ tags: { k: 1 } }), posting()] }],
    ['an array as a posting', { postings: [posting(), [posting()]] }],
    ['array metadata', { ...valid, metadata: [] }],
    ['a string dry_run', { ...valid, dry_run: 'true' }],
    ['a null optional', { ...valid, metadata: null }],
    ['value_date', { ...valid, value_date: '2026-01-01' }],
    ['conditions', { ...valid, conditions: [] }],
    ['not an object', 'postings'],
  ])('leaves %s to the full validation', (_name, body) => {
    expect(acceptCreateTransaction(body)).toBeUndefined();
  });
});
