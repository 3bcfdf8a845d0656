import fc from 'fast-check';
import { AccountRow, booksStack } from '../books-api';
import { booksProblems } from '@bursar/testing';

/** Accounts by currency; the `none` ones are where overdrafts would show. */
const ACCOUNTS: AccountRow[] = [
  ['usd:cash', 'asset', 'USD', {}],
  ['usd:wallet:a', 'liability', 'USD', { overdraft_policy: 'none' }],
  ['usd:wallet:b', 'liability', 'USD', { overdraft_policy: 'none', overdraft_limit: '500' }],
  ['usd:sales', 'revenue', 'USD', {}],
  ['eur:cash', 'asset', 'EUR', { overdraft_policy: 'none' }],
  ['eur:capital', 'equity', 'EUR', {}],
];

type Op =
  | { kind: 'transfer'; currency: 'USD' | 'EUR'; from: number; to: number; amount: number; pending: boolean }
  | { kind: 'commit' | 'reverse'; pick: number }
  | { kind: 'refund'; pick: number; share: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('transfer' as const), currency: fc.constantFrom('USD' as const, 'EUR' as const), from: fc.nat(3), to: fc.nat(3), amount: fc.integer({ min: 1, max: 900 }), pending: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('commit' as const, 'reverse' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), share: fc.integer({ min: 1, max: 100 }) }) },
);

describe('Books invariants under random operations (fast-check)', () => {
  const api = booksStack('properties', { accounts: ACCOUNTS });

  const accountsIn = (currency: string) => ACCOUNTS.filter((a) => a[2] === currency).map((a) => a[0]);

  async function apply(o: Op, written: { id: string; gross: number }[]): Promise<number> {
    if (o.kind === 'transfer') {
      const ids = accountsIn(o.currency);
      const [from, to] = [ids[o.from % ids.length], ids[o.to % ids.length]];
      const res = await api.post('/transactions', {
        postings: [
          { account: to, amount: String(o.amount), currency: o.currency, direction: 'debit', pending: o.pending },
          { account: from, amount: String(o.amount), currency: o.currency, direction: 'credit', pending: o.pending },
        ],
      });
      if (res.status === 201) written.push({ id: res.body.data.id, gross: o.amount });
      return res.status;
    }
    if (written.length === 0) return 0;
    const target = written[o.pick % written.length];
    if (o.kind === 'refund') {
      const amount = Math.max(1, Math.floor((target.gross * o.share) / 100));
      return (await api.post(`/transactions/${target.id}/refund`, { amount: String(amount) })).status;
    }
    return (await api.post(`/transactions/${target.id}/${o.kind}`)).status;
  }

  it('keeps every currency at zero, balances equal to postings and no none-account overdrawn', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 12 }), async (ops) => {
        const written: { id: string; gross: number }[] = [];
        for (const o of ops) {
          const status = await apply(o, written);
          // Refusals are fine (overdraft, already reversed, refund too large); failures are not.
          expect([0, 200, 201, 409, 422]).toContain(status);
          expect(await booksProblems(api.db, api.client.ledgerId)).toEqual([]);
        }
      }),
      { numRuns: 15 },
    );
  }, 60_000);
});
