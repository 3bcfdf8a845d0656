import fc from 'fast-check';
import { FoundMatch, findSum, MatchOptions, MatchPosting, MatchRow, MAX_SUM_PARTS, ReconciliationMatcher, RefCandidate } from './reconciliation-matcher';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);

const row = (id: string, amount: bigint, at: number, more: Partial<MatchRow> = {}): MatchRow => ({
  id,
  externalId: `ext_${id}`,
  amount,
  currency: 'USD',
  scopeAccount: null,
  at,
  ref: null,
  ...more,
});

const posting = (id: string, amount: bigint, valueDate: number, more: Partial<MatchPosting> = {}): MatchPosting => ({
  id,
  accountId: 'cash',
  amount,
  currency: 'USD',
  valueDate,
  taken: false,
  ...more,
});

const EXACT: MatchOptions = { strategy: 'exact', windowMs: DAY, tolerance: 0n };

function match(rows: MatchRow[], postings: MatchPosting[], options: Partial<MatchOptions> = {}, refs: RefCandidate[] = []): FoundMatch[] {
  return new ReconciliationMatcher(rows, postings, { ...EXACT, ...options }).run(refs);
}

/** `row→posting,posting@pass residual` per match, in the order found. */
const pairs = (found: FoundMatch[]) => found.map((m) => `${m.row.id}→${m.postings.map((p) => p.id).join(',')}@${m.pass}${m.residual === 0n ? '' : ` ${m.residual}`}`);

describe('ReconciliationMatcher: external reference pass', () => {
  it('pairs a row with a posting of a transaction carrying its reference, for exactly its amount, outside the window too', () => {
    const far = posting('7', 100n, T0 + 30 * DAY);
    const near = posting('8', 100n, T0);
    const rows = [row('r1', 100n, T0, { ref: 'ach\u001ftrace\u001f123' })];
    expect(pairs(match(rows, [far, near], {}, [{ rowId: 'r1', posting: far }]))).toEqual(['r1→7@external_ref']);
  });

  it('leaves a reference candidate of another amount, currency or account to the later passes', () => {
    const rows = [row('r1', 100n, T0, { ref: 'x', scopeAccount: 'cash' })];
    const wrong = [posting('1', 99n, T0), posting('2', 100n, T0, { currency: 'EUR' }), posting('3', 100n, T0, { accountId: 'bank' })];
    const plain = posting('4', 100n, T0 + 1000);
    const refs = wrong.map((p) => ({ rowId: 'r1', posting: p }));
    expect(pairs(match(rows, [...wrong, plain], {}, refs))).toEqual(['r1→4@exact']);
  });

  it('reads reference candidates only for a row that has a reference', () => {
    const p = posting('1', 100n, T0 + 30 * DAY);
    expect(match([row('r1', 100n, T0)], [p], {}, [{ rowId: 'r1', posting: p }])).toEqual([]);
  });
});

describe('ReconciliationMatcher: exact pass', () => {
  it('takes the posting nearest in date within the window', () => {
    const postings = [posting('1', 100n, T0 - 5000), posting('2', 100n, T0 + 2000), posting('3', 100n, T0 + 3000)];
    expect(pairs(match([row('r1', 100n, T0)], postings))).toEqual(['r1→2@exact']);
  });

  it('counts the window inclusively and matches nothing beyond it', () => {
    expect(pairs(match([row('r1', 100n, T0)], [posting('1', 100n, T0 + DAY)]))).toEqual(['r1→1@exact']);
    expect(match([row('r1', 100n, T0)], [posting('1', 100n, T0 + DAY + 1)])).toEqual([]);
    expect(match([row('r1', 100n, T0)], [posting('1', 100n, T0 + 1000), posting('2', 100n, T0 - DAY - 1)], { windowMs: 500 })).toEqual([]);
  });

  it('never pairs another currency, another sign or another amount without a tolerance', () => {
    const postings = [posting('1', 100n, T0, { currency: 'EUR' }), posting('2', -100n, T0), posting('3', 101n, T0)];
    expect(match([row('r1', 100n, T0)], postings)).toEqual([]);
  });

  it('keeps a row with an account to that account; a row without one takes any', () => {
    const postings = [posting('1', 100n, T0, { accountId: 'bank' }), posting('2', 100n, T0 + 5000, { accountId: 'cash' })];
    expect(pairs(match([row('r1', 100n, T0, { scopeAccount: 'cash' })], postings))).toEqual(['r1→2@exact']);
    expect(pairs(match([row('r1', 100n, T0)], postings.map((p) => ({ ...p, taken: false }))))).toEqual(['r1→1@exact']);
  });

  it('uses each posting once, giving it to the earliest row', () => {
    const rows = [row('late', 100n, T0 + 1000), row('early', 100n, T0 - 1000)];
    expect(pairs(match(rows, [posting('1', 100n, T0 + 900)]))).toEqual(['early→1@exact']);
    const both = match(rows, [posting('1', 100n, T0 + 900), posting('2', 100n, T0 + 950)]);
    expect(pairs(both)).toEqual(['early→1@exact', 'late→2@exact']);
  });

  it('breaks a tie in distance by the lower posting id, as a number', () => {
    expect(pairs(match([row('r1', 100n, T0)], [posting('10', 100n, T0 + 500), posting('9', 100n, T0 - 500)]))).toEqual(['r1→9@exact']);
    expect(pairs(match([row('r1', 100n, T0)], [posting('9', 100n, T0 + 500), posting('10', 100n, T0 - 500)]))).toEqual(['r1→9@exact']);
  });

  it('breaks a tie between postings of the same date by the lower posting id, before the row as after it', () => {
    const after = [posting('21', 100n, T0 + 500), posting('20', 100n, T0 + 500)];
    expect(pairs(match([row('r1', 100n, T0)], after))).toEqual(['r1→20@exact']);
    const before = [posting('20', 100n, T0 - 500), posting('21', 100n, T0 - 500)];
    expect(pairs(match([row('r1', 100n, T0)], before))).toEqual(['r1→20@exact']);
  });

  it('with a tolerance, takes the smallest residual first, then the nearest date', () => {
    const postings = [posting('1', 103n, T0), posting('2', 98n, T0 + 5000), posting('3', 102n, T0 + 9000), posting('4', 110n, T0)];
    expect(pairs(match([row('r1', 100n, T0)], postings, { tolerance: 5n }))).toEqual(['r1→2@exact 2']);
    expect(pairs(match([row('r1', 100n, T0)], [posting('1', 98n, T0 + 9000), posting('2', 102n, T0 + 1000)], { tolerance: 5n }))).toEqual(['r1→2@exact -2']);
    expect(match([row('r1', 100n, T0)], [posting('4', 106n, T0)], { tolerance: 5n })).toEqual([]);
  });

  it('prefers an exact amount anywhere in the window to a near amount nearer in date', () => {
    const postings = [posting('1', 101n, T0), posting('2', 100n, T0 + 20_000)];
    expect(pairs(match([row('r1', 100n, T0)], postings, { tolerance: 5n }))).toEqual(['r1→2@exact']);
  });
});

describe('ReconciliationMatcher: sum in window', () => {
  it('combines two to five postings of the row’s sign only when asked', () => {
    const postings = () => [posting('1', 60n, T0), posting('2', 40n, T0 + 1000), posting('3', -100n, T0)];
    expect(match([row('r1', 100n, T0)], postings())).toEqual([]);
    expect(pairs(match([row('r1', 100n, T0)], postings(), { strategy: 'sum_in_window' }))).toEqual(['r1→1,2@sum_in_window']);
    expect(match([row('r1', -100n, T0)], [posting('1', -60n, T0), posting('2', 40n, T0), posting('3', -80n, T0)], { strategy: 'sum_in_window' })).toEqual([]);
  });

  it('leaves postings outside the window, in another currency or of another account out of a sum', () => {
    const postings = [posting('1', 60n, T0), posting('2', 40n, T0 + DAY + 1), posting('3', 40n, T0, { currency: 'EUR' }), posting('4', 40n, T0, { accountId: 'bank' })];
    expect(match([row('r1', 100n, T0, { scopeAccount: 'cash' })], postings, { strategy: 'sum_in_window' })).toEqual([]);
  });

  it('prefers fewer parts, then an exact sum to one within the tolerance', () => {
    const three = [posting('1', 30n, T0), posting('2', 30n, T0), posting('3', 40n, T0)];
    expect(pairs(match([row('r1', 100n, T0)], [...three, posting('4', 70n, T0 + 5000)], { strategy: 'sum_in_window' }))).toEqual(['r1→1,4@sum_in_window']);
    const near = [posting('1', 51n, T0), posting('2', 50n, T0), posting('3', 49n, T0)];
    expect(pairs(match([row('r1', 100n, T0)], near, { strategy: 'sum_in_window', tolerance: 2n }))).toEqual(['r1→1,3@sum_in_window']);
  });

  it('among equal sums takes the postings nearest in date, and looks at the 16 nearest only', () => {
    const postings = [posting('1', 40n, T0 - 5000), posting('2', 60n, T0 - 4000), posting('3', 40n, T0 + 100), posting('4', 60n, T0 + 200)];
    expect(pairs(match([row('r1', 100n, T0)], postings, { strategy: 'sum_in_window' }))).toEqual(['r1→3,4@sum_in_window']);
    const near = Array.from({ length: 16 }, (_, i) => posting(String(i + 10), 1n, T0 + i));
    const far = [posting('1', 50n, T0 - 9000), posting('2', 50n, T0 - 9000)];
    expect(match([row('r1', 100n, T0)], [...far, ...near], { strategy: 'sum_in_window' })).toEqual([]);
    expect(pairs(match([row('r1', 100n, T0)], [...far, ...near.slice(2)], { strategy: 'sum_in_window' }))).toEqual(['r1→1,2@sum_in_window']);
  });
});

describe('findSum', () => {
  const parts = (amounts: number[]) => amounts.map((a, i) => posting(String(i + 1), BigInt(a), T0));
  const ids = (found: MatchPosting[] | null) => found?.map((p) => p.id) ?? null;

  it.each([
    ['two parts', [10, 20, 70], 90, 0, ['2', '3']],
    ['fewest parts before smaller residual', [50, 49, 25, 25], 100, 1, ['1', '2']],
    ['smallest residual among equal part counts', [50, 49, 51], 100, 1, ['2', '3']],
    ['first in candidate order among equal residuals', [40, 60, 60], 100, 0, ['1', '2']],
    ['five parts at most', [20, 20, 20, 20, 20], 100, 0, ['1', '2', '3', '4', '5']],
    ['six parts is too many', [10, 10, 10, 10, 10, 10], 60, 0, null],
    ['a single part is not a sum', [100], 100, 0, null],
    ['negative targets', [-30, -70, -50], -100, 0, ['2', '1'].sort()],
  ])('%s', (_name, amounts, target, tolerance, expected) => {
    expect(ids(findSum(parts(amounts), BigInt(target), BigInt(tolerance)))).toEqual(expected);
  });
});

// ---- Properties -------------------------------------------------------------------------------

const CURRENCIES = ['USD', 'EUR'];
const ACCOUNTS = ['cash', 'bank'];

const caseArb = fc.record({
  rows: fc.array(
    fc.record({
      amount: fc.integer({ min: -8, max: 8 }),
      currency: fc.constantFrom(...CURRENCIES),
      scope: fc.constantFrom(null, ...ACCOUNTS),
      at: fc.integer({ min: 0, max: 10 }),
      hasRef: fc.boolean(),
    }),
    { maxLength: 12 },
  ),
  postings: fc.array(
    fc.record({
      amount: fc.integer({ min: -8, max: 8 }),
      currency: fc.constantFrom(...CURRENCIES),
      account: fc.constantFrom(...ACCOUNTS),
      at: fc.integer({ min: 0, max: 10 }),
    }),
    { maxLength: 16 },
  ),
  strategy: fc.constantFrom('exact' as const, 'sum_in_window' as const),
  window: fc.integer({ min: 0, max: 6 }),
  tolerance: fc.integer({ min: 0, max: 3 }),
  refPicks: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 6 }),
  seed: fc.integer(),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** Fresh objects every time: the matcher marks the postings it takes. Times in minutes, ids as the ledger's (digit strings). */
function build(c: Case): { rows: MatchRow[]; postings: MatchPosting[]; refs: RefCandidate[]; options: MatchOptions } {
  const MINUTE = 60_000;
  const rows = c.rows.map((r, i) =>
    row(`r${String(i).padStart(2, '0')}`, BigInt(r.amount), T0 + r.at * MINUTE, { currency: r.currency, scopeAccount: r.scope, ref: r.hasRef ? `ref${i}` : null }),
  );
  const postings = c.postings.map((p, i) => posting(String(i + 1), BigInt(p.amount), T0 + p.at * MINUTE, { currency: p.currency, accountId: p.account }));
  const refs = rows.length && postings.length ? c.refPicks.map(([r, p]) => ({ rowId: rows[r % rows.length].id, posting: postings[p % postings.length] })) : [];
  return { rows, postings, refs, options: { strategy: c.strategy, windowMs: c.window * MINUTE, tolerance: BigInt(c.tolerance) } };
}

const key = (found: FoundMatch[]) => pairs(found).sort();

describe('ReconciliationMatcher: properties', () => {
  it('matches one to one, never across currencies or accounts, within the window and the tolerance', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { rows, postings, refs, options } = build(c);
        const found = new ReconciliationMatcher(rows, postings, options).run(refs);
        const usedRows = found.map((m) => m.row.id);
        const usedPostings = found.flatMap((m) => m.postings.map((p) => p.id));
        expect(new Set(usedRows).size).toBe(usedRows.length);
        expect(new Set(usedPostings).size).toBe(usedPostings.length);
        for (const m of found) {
          const sum = m.postings.reduce((s, p) => s + p.amount, 0n);
          expect(m.residual).toBe(m.row.amount - sum);
          const within = m.residual <= options.tolerance && -m.residual <= options.tolerance;
          expect(m.pass === 'external_ref' ? m.residual === 0n : within).toBe(true);
          expect(m.postings.length).toBe(m.pass === 'sum_in_window' ? Math.max(2, m.postings.length) : 1);
          expect(m.postings.length).toBeLessThanOrEqual(MAX_SUM_PARTS);
          for (const p of m.postings) {
            expect(p.currency).toBe(m.row.currency);
            if (m.row.scopeAccount !== null) expect(p.accountId).toBe(m.row.scopeAccount);
            if (m.pass === 'external_ref') expect(refs).toContainEqual({ rowId: m.row.id, posting: p });
            else expect(Math.abs(p.valueDate - m.row.at)).toBeLessThanOrEqual(options.windowMs);
            if (m.pass === 'sum_in_window') expect(p.amount > 0n).toBe(m.row.amount > 0n);
          }
        }
      }),
      { seed: 16, numRuns: 1500 },
    );
  });

  it('finds the same matches whatever order rows, postings and candidates arrive in', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const first = build(c);
        const again = build(c);
        const shuffled = <T>(items: T[]) => fc.sample(fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length }), { seed: c.seed, numRuns: 1 })[0];
        const byId = new Map(again.postings.map((p) => [p.id, p]));
        const refs = shuffled(first.refs.map((r) => ({ rowId: r.rowId, posting: byId.get(r.posting.id) as MatchPosting })));
        expect(key(new ReconciliationMatcher(shuffled(again.rows), shuffled(again.postings), again.options).run(refs))).toEqual(
          key(new ReconciliationMatcher(first.rows, first.postings, first.options).run(first.refs)),
        );
      }),
      { seed: 16, numRuns: 1000 },
    );
  });

  it('matches exact amounts as a direct reading of the rule does: rows by time, each the nearest free posting, ties to the lower id', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { rows, postings, options } = build({ ...c, strategy: 'exact', tolerance: 0 });
        const expected: string[] = [];
        const taken = new Set<string>();
        for (const r of [...rows].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))) {
          const best = postings
            .filter((p) => !taken.has(p.id) && p.amount === r.amount && p.currency === r.currency && (r.scopeAccount === null || p.accountId === r.scopeAccount))
            .filter((p) => Math.abs(p.valueDate - r.at) <= options.windowMs)
            .sort((a, b) => Math.abs(a.valueDate - r.at) - Math.abs(b.valueDate - r.at) || Number(a.id) - Number(b.id))[0];
          if (!best) continue;
          taken.add(best.id);
          expected.push(`${r.id}→${best.id}@exact`);
        }
        expect(key(new ReconciliationMatcher(rows, postings, options).run([]))).toEqual(expected.sort());
      }),
      { seed: 16, numRuns: 3000 },
    );
  });

  it('findSum returns a combination with the fewest parts, then the smallest residual', () => {
    const amounts = fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 7 });
    fc.assert(
      fc.property(amounts, fc.integer({ min: 1, max: 90 }), fc.integer({ min: 0, max: 2 }), fc.boolean(), (values, target, tolerance, negative) => {
        const sign = negative ? -1n : 1n;
        const candidates = values.map((v, i) => posting(String(i + 1), sign * BigInt(v), T0));
        const found = findSum(candidates, sign * BigInt(target), BigInt(tolerance));
        // Every subset, by brute force.
        const fits: { size: number; residual: number }[] = [];
        for (let mask = 1; mask < 1 << values.length; mask++) {
          const picked = values.filter((_, i) => mask & (1 << i));
          const residual = Math.abs(target - picked.reduce((s, v) => s + v, 0));
          if (picked.length >= 2 && picked.length <= MAX_SUM_PARTS && residual <= tolerance) fits.push({ size: picked.length, residual });
        }
        if (!fits.length) return expect(found).toBeNull();
        const best = fits.sort((a, b) => a.size - b.size || a.residual - b.residual)[0];
        expect(found).not.toBeNull();
        const sum = (found as MatchPosting[]).reduce((s, p) => s + p.amount, 0n);
        expect([(found as MatchPosting[]).length, Math.abs(Number(sign * BigInt(target) - sum))]).toEqual([best.size, best.residual]);
      }),
      { seed: 16, numRuns: 2000 },
    );
  });
});
