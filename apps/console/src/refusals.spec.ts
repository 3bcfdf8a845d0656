import { ApiError } from './api/api-error';
import { formPath, refusedFields } from './refusals';

const refusal = (extra: Record<string, unknown>) => new ApiError({ message: 'rules[2].max_cents must be an integer >= 0', code: null, hint: 'h', ...extra }, 422);

describe('refusedFields', () => {
  it('writes request paths in form notation', () => {
    expect(formPath('rules[2].when.all_of[0]')).toBe('rules.2.when.all_of.0');
    expect(formPath('policy.per_transaction_cap_cents')).toBe('policy.per_transaction_cap_cents');
  });

  it('takes every field of a validation failure from details.fields', () => {
    const err = refusal({ param: 'name', details: { fields: { name: ['is required'], 'scopes[0]': ['bad scope', 'too long'] } } });
    expect(refusedFields(err)).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'scopes.0', message: 'bad scope; too long' },
    ]);
  });

  it('takes the one field a rule refused from param, with the message', () => {
    expect(refusedFields(refusal({ param: 'rules[2].max_cents' }))).toEqual([{ path: 'rules.2.max_cents', message: 'rules[2].max_cents must be an integer >= 0' }]);
  });

  it('never reads a field out of the message', () => {
    expect(refusedFields(refusal({}))).toEqual([]);
    expect(refusedFields(new Error('rules[0].max_cents is wrong'))).toEqual([]);
  });
});
