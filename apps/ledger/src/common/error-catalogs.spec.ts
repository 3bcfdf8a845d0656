import { join } from 'node:path';
import { declaredErrorCodes } from '@bursar/testing';

const codes = declaredErrorCodes(join(__dirname, '..'));

describe('ledger error catalogs', () => {
  it('are found (every module declares its codes in an errors file)', () => {
    expect(new Set(codes.map((c) => c.file)).size).toBeGreaterThanOrEqual(14);
    expect(codes.map((c) => c.code)).toEqual(expect.arrayContaining(['invalid_request', 'unbalanced', 'invalid_client']));
  });

  it.each(codes.map((c) => [`${c.file} ${c.code}${c.param ? ` raised with param ${c.param}` : ''}`, c] as const))('%s has a message and a hint of its own', (_, c) => {
    expect(c.message.trim().length).toBeGreaterThan(10);
    expect(c.hint.trim().length).toBeGreaterThan(10);
    expect(c.hint).not.toBe(c.message);
    expect(c.status).toBeGreaterThanOrEqual(400);
  });

  it('points a malformed-request hint at the field a raise names', () => {
    expect(codes.find((c) => c.code === 'invalid_request' && c.param && c.file.startsWith('common'))?.hint).toMatch(/^Change `amount` as the message says/);
  });
});
