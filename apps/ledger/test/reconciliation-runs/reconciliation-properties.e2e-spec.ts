import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { MATCHED_OF_RUN } from '../../src/reconciliation-runs/reconciliation-runs.repository';
import { BooksApi, Json } from '../books-api';
import { ledgerAppStack } from '../ledger-test-app';

/*
 * Property: whatever the books and the bank statement look like (noise included: split payments,
 * duplicates, dates a day off, amounts just outside the tolerance, the wrong currency, rows with no
 * counterpart), a reconciliation run never matches a posting or a row twice, every match is
 * same-currency and sums exactly (or within the tolerance, then marked auto-resolved), and
 * running it again changes nothing.
 */

const BASE = Date.parse('2026-05-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BANK: Record<string, string> = { USD: 'bank', EUR: 'bank-eur' };
const OTHER = { USD: 'EUR', EUR: 'USD' } as const;

const postingArb = fc.record({
  amount: fc.integer({ min: 1, max: 400 }),
  currency: fc.constantFrom<'USD' | 'EUR'>('USD', 'EUR'),
  hours: fc.integer({ min: 0, max: 96 }),
  incoming: fc.boolean(),
});
const NOISE = ['exact', 'shifted', 'day_late', 'duplicate', 'split', 'within_tolerance', 'outside_tolerance', 'wrong_currency', 'missing'] as const;
type Noise = (typeof NOISE)[number];
const scenarioArb = fc.record({
  postings: fc.array(postingArb, { minLength: 1, maxLength: 7 }),
  noise: fc.array(fc.constantFrom<Noise>(...NOISE), { minLength: 1, maxLength: 8 }),
  strategy: fc.constantFrom<'exact' | 'sum_in_window'>('exact', 'sum_in_window'),
  tolerance: fc.integer({ min: 0, max: 3 }),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;
type Posting = Scenario['postings'][number];

const signed = (p: Posting) => (p.incoming ? p.amount : -p.amount);

/** The bank statement the scenario's noise makes of its postings. */
function statement(s: Scenario): Json[] {
  const rows: Json[] = [];
  const row = (id: string, amount: number, currency: 'USD' | 'EUR', at: number) =>
    rows.push({ external_id: id, amount: String(amount), currency, at: new Date(at).toISOString(), account_id: BANK[currency] });
  s.noise.forEach((noise, k) => {
    const p = s.postings[k % s.postings.length];
    const q = s.postings[(k + 1) % s.postings.length];
    const at = BASE + p.hours * HOUR;
    switch (noise) {
      case 'exact':
        return row(`r${k}`, signed(p), p.currency, at);
      case 'shifted':
        return row(`r${k}`, signed(p), p.currency, at + 5 * HOUR);
      case 'day_late':
        return row(`r${k}`, signed(p), p.currency, at + DAY + 1000);
      case 'duplicate':
        row(`r${k}`, signed(p), p.currency, at);
        return row(`r${k}-dup`, signed(p), p.currency, at + HOUR);
      case 'split':
        return row(`r${k}`, signed(p) + (q.currency === p.currency ? signed(q) : 0), p.currency, at);
      case 'within_tolerance':
        return row(`r${k}`, signed(p) + s.tolerance, p.currency, at);
      case 'outside_tolerance':
        return row(`r${k}`, signed(p) + s.tolerance + 1, p.currency, at);
      case 'wrong_currency':
        return row(`r${k}`, signed(p), OTHER[p.currency], at);
      case 'missing':
        return row(`r${k}`, 1_000_000 + k, p.currency, at);
    }
  });
  // A zero amount is not a bank row.
  return rows.filter((r) => r.amount !== '0');
}

describe('Reconciliation properties', () => {
  const t = ledgerAppStack('reconciliation_props', {
    LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent',
    WEBHOOK_QUEUE_PREFIX: `test-recon-props-${randomBytes(4).toString('hex')}`,
  });

  /** What a run could change: live matches, reconciled postings, row states. */
  async function snapshot(ledgerId: string) {
    const [matches, postings, rows] = await Promise.all([
      t.db.query(`SELECT id, external_transaction_id, posting_ids::text[] AS posting_ids FROM reconciliation_matches WHERE ledger_id = $1 ORDER BY id`, [ledgerId]),
      t.db.query(`SELECT id::text, reconciled_at FROM postings WHERE ledger_id = $1 ORDER BY id`, [ledgerId]),
      t.db.query(`SELECT id, status, reconciliation_match_id, reconciliation_run_id FROM external_transactions WHERE ledger_id = $1 ORDER BY id`, [ledgerId]),
    ]);
    return { matches, postings, rows };
  }

  async function checkInvariants(ledgerId: string, tolerance: number): Promise<void> {
    const twice = await t.db.query(
      `SELECT 'posting' AS what, posting_id::text AS id FROM reconciliation_match_postings WHERE ledger_id = $1 AND released_at IS NULL
         GROUP BY posting_id HAVING count(*) > 1
       UNION ALL
       SELECT 'row', external_transaction_id::text FROM reconciliation_matches WHERE ledger_id = $1 AND reversed_at IS NULL
         GROUP BY external_transaction_id HAVING count(*) > 1`,
      [ledgerId],
    );
    expect(twice).toEqual([]);
    const matches: { id: string; row_amount: string; row_currency: string; currency: string; residual: string; auto_resolved: boolean;
      status: string; row_match: string; sum: string; currencies: string[]; unreconciled: number; parts: number }[] = await t.db.query(
      `SELECT m.id, x.amount::text AS row_amount, x.currency AS row_currency, m.currency, m.residual::text AS residual, m.auto_resolved,
         x.status, x.reconciliation_match_id AS row_match,
         (SELECT sum(CASE p.direction WHEN 'debit' THEN p.amount ELSE -p.amount END)::text FROM postings p WHERE p.id = ANY (m.posting_ids)) AS sum,
         (SELECT array_agg(DISTINCT p.currency) FROM postings p WHERE p.id = ANY (m.posting_ids)) AS currencies,
         (SELECT count(*)::int FROM postings p WHERE p.id = ANY (m.posting_ids) AND p.reconciled_at IS NULL) AS unreconciled,
         cardinality(m.posting_ids) AS parts
       FROM reconciliation_matches m JOIN external_transactions x ON x.id = m.external_transaction_id
       WHERE m.ledger_id = $1 AND m.reversed_at IS NULL`,
      [ledgerId],
    );
    for (const m of matches) {
      expect(m.currencies).toEqual([m.row_currency]);
      expect(m.currency).toBe(m.row_currency);
      const residual = BigInt(m.row_amount) - BigInt(m.sum);
      expect(m.residual).toBe(residual.toString());
      expect(residual === 0n ? !m.auto_resolved : m.auto_resolved).toBe(true);
      expect(residual < 0n ? -residual : residual).toBeLessThanOrEqual(BigInt(tolerance));
      expect(m.parts).toBeLessThanOrEqual(5);
      expect({ status: m.status, match: m.row_match, unreconciled: m.unreconciled }).toEqual({ status: 'matched', match: m.id, unreconciled: 0 });
    }
  }

  it('never matches twice, matches only same-currency exact (or tolerated) sums, and a rerun changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const api = await BooksApi.start(t);
        for (const [id, type, currency] of [
          ['bank', 'asset', 'USD'],
          ['sales', 'revenue', 'USD'],
          ['rent', 'expense', 'USD'],
          ['bank-eur', 'asset', 'EUR'],
          ['sales-eur', 'revenue', 'EUR'],
          ['rent-eur', 'expense', 'EUR'],
        ]) {
          await api.account(id, type, currency);
        }
        for (const p of s.postings) {
          const suffix = p.currency === 'EUR' ? '-eur' : '';
          const [from, to] = p.incoming ? [`sales${suffix}`, `bank${suffix}`] : [`bank${suffix}`, `rent${suffix}`];
          await api.transfer(from, to, String(p.amount), p.currency, { value_date: new Date(BASE + p.hours * HOUR).toISOString() }).expect(201);
        }
        const body = { source: 'statement', strategy: s.strategy, auto_resolve_below_minor_units: String(s.tolerance), items: statement(s) };
        const first = await api.post('/reconciliation_runs', body).expect(201);
        expect(first.body.data.status).toBe('completed');
        const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM reconciliation_matches WHERE reconciliation_run_id = $1`, [first.body.data.id]);
        expect(first.body.data.matched_count).toBe(n);
        expect(first.body.data.matched_count + first.body.data.unmatched_count).toBe(new Set(body.items.map((i) => i.external_id)).size);
        // matched[] as the batches' slices joined it is what building it whole from the matches gives.
        const [whole] = await t.db.query(`SELECT (${MATCHED_OF_RUN})::text AS matched`, [api.client.ledgerId, first.body.data.id]);
        expect(first.body.data.matched).toEqual(JSON.parse(whole.matched));
        await checkInvariants(api.client.ledgerId, s.tolerance);

        const before = await snapshot(api.client.ledgerId);
        const again = await api.post('/reconciliation_runs', body).expect(201);
        expect(again.body.data).toMatchObject({ status: 'completed', matched_count: 0, unmatched_count: first.body.data.unmatched_count });
        expect(await snapshot(api.client.ledgerId)).toEqual(before);
        await checkInvariants(api.client.ledgerId, s.tolerance);
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
