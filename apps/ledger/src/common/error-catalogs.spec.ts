import { join } from 'node:path';
import { declaredErrorCodes } from '@bursar/testing';

const codes = declaredErrorCodes(join(__dirname, '..'));

describe('ledger error catalogs', () => {
  it('are found (every module declares its codes in an errors file)', () => {
    expect(new Set(codes.map((c) => c.file)).size).toBeGreaterThanOrEqual(14);
    expect(codes.map((c) => c.code)).toEqual(expect.arrayContaining(['invalid_request', 'unbalanced', 'invalid_client']));
  });

  it.each(codes.map((c) => [`${c.file} ${c.code}`, c] as const))('%s has a message and a hint of its own', (_, c) => {
    expect(c.message.trim().length).toBeGreaterThan(10);
    expect(c.hint.trim().length).toBeGreaterThan(10);
    expect(c.hint).not.toBe(c.message);
    expect(c.status).toBeGreaterThanOrEqual(400);
  });
});
