import { join } from 'node:path';
import { describeErrorCatalogs } from '@bursar/testing';

const codes = describeErrorCatalogs('ledger', join(__dirname, '..'), 14, ['invalid_request', 'unbalanced', 'invalid_client']);

describe('ledger error hints', () => {
  it('points a malformed-request hint at the field a raise names', () => {
    expect(codes.find((c) => c.code === 'invalid_request' && c.param && c.file.startsWith('common'))?.hint).toMatch(/^Change `amount` as the message says/);
  });
});
