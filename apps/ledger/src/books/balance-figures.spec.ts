import { balanceFigures, BalanceTotals } from './balance-figures';

const totals = (postedDebits: bigint, postedCredits: bigint, pendingDebits: bigint, pendingCredits: bigint): BalanceTotals => ({
  postedDebits,
  postedCredits,
  pendingDebits,
  pendingCredits,
});

describe('balance figures', () => {
  it('reads a debit-normal account positive on the debit side; pending outflows (credits) reduce available', () => {
    expect(balanceFigures('asset', totals(100n, 30n, 20n, 15n))).toEqual({ posted: 70n, pending: 5n, available: 55n });
    expect(balanceFigures('expense', totals(1n, 0n, 0n, 0n)).posted).toBe(1n);
  });

  it('reads a credit-normal account positive on the credit side; pending inflows never count', () => {
    expect(balanceFigures('liability', totals(30n, 100n, 20n, 15n))).toEqual({ posted: 70n, pending: -5n, available: 50n });
    for (const type of ['revenue', 'equity'] as const) expect(balanceFigures(type, totals(0n, 9n, 0n, 4n)).available).toBe(9n);
  });
});
