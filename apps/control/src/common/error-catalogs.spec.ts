import { join } from 'node:path';
import { declaredErrorCodes } from '@bursar/testing';

const codes = declaredErrorCodes(join(__dirname, '..'));

describe('control error catalogs', () => {
  it('are found (every module declares its codes in an errors file)', () => {
    expect(new Set(codes.map((c) => c.file)).size).toBeGreaterThanOrEqual(8);
    expect(codes.map((c) => c.code)).toEqual(expect.arrayContaining(['runtime_key_required', 'budget_ceiling', 'insufficient_role']));
  });

  it.each(codes.map((c) => [`${c.file} ${c.code}${c.param ? ` raised with param ${c.param}` : ''}`, c] as const))('%s has a message and a hint of its own', (_, c) => {
    expect(c.message.trim().length).toBeGreaterThan(10);
    expect(c.hint.trim().length).toBeGreaterThan(10);
    expect(c.hint).not.toBe(c.message);
    expect(c.status).toBeGreaterThanOrEqual(400);
  });
});
