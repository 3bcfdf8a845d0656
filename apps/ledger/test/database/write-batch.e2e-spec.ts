import { randomUUID } from 'node:crypto';
import { QueryFailedError } from 'typeorm';
import { BatchItem, writeBatchJson } from '../../src/books/engine-batch';
import { TransactionsRepository, WRITE_RACED } from '../../src/transactions/transactions.repository';
import { balanceFigures } from '../../src/books/balance-figures';
import { booksStack } from '../books-api';
import { booksProblems } from '@bursar/testing';

/** ledger_write_batch called directly: one call, one result per item, refusals item by item. */
describe('The write function (ledger_write_batch)', () => {
  const api = booksStack('write-batch', {
    accounts: [
      'bank', 'wallet',
      ['euros', 'liability', 'EUR'],
    ],
  });
  let repo: TransactionsRepository;
  let nextId = 0;

  beforeAll(async () => {
    repo = api.t.app.get(TransactionsRepository);
    // Posting ids the service has not handed out: far above what the app's pool drew.
    nextId = Number((await api.db.query(`SELECT nextval(pg_get_serial_sequence('postings', 'id')) AS n`))[0].n) + 1_000_000;
  });

  /** A transfer of `amount` USD from `from` (credited) to `to` (debited). */
  function transfer(from: string, to: string, amount: string, extra: Partial<BatchItem> = {}): BatchItem {
    const id = randomUUID();
    const leg = (account: string, direction: string) => ({ id: String(nextId++), account, amount, currency: 'USD', direction, pending: false, tags: {} });
    return {
      id,
      key: null,
      kind: 'standard',
      reverses: null,
      refund_amount: null,
      refund_currency: null,
      metadata: {},
      value_date: new Date(),
      created_at: new Date(),
      postings: [leg(to, 'debit'), leg(from, 'credit')],
      refs: [],
      conditions: [],
      events: [{ type: 'transaction.created', resource_id: id, data: { id } }],
      trace_context: null,
      idem: null,
      touched: false,
      ...extra,
    };
  }

  function call(items: BatchItem[], mode: { dry_run?: boolean; atomic?: boolean; accounts?: string[] } = {}): string {
    const named = items.flatMap((i) => [...(i.postings ?? []).map((p) => p.account), ...(i.conditions ?? []).map((c) => c.account)]);
    const accounts = [...new Set([...named, ...(mode.accounts ?? [])])];
    const { organizationId, ledgerId } = api.client;
    const head = {
      ledger: ledgerId, organization: organizationId, mode: 'test', stale_before: new Date(), expired_before: null, accounts,
      dry_run: mode.dry_run ?? false, atomic: mode.atomic ?? false,
    };
    return writeBatchJson(head, items.map((item) => JSON.stringify(item)));
  }

  it('checks each item against the ones accepted before it and writes only the accepted, with their events in order', async () => {
    const ref = { id: randomUUID(), rail: 'ach', kind: 'trace', value: `r-${randomUUID()}` };
    const items = [
      transfer('wallet', 'bank', '100'), // funds the wallet (a liability: a credit raises it)
      transfer('bank', 'wallet', '60'), // spends 60 of it
      transfer('bank', 'wallet', '50'), // only 40 left: refused
      transfer('bank', 'ghost', '1'),
      transfer('wallet', 'bank', '1', { key: 'k-1', refs: [{ ...ref, metadata: {} }] }),
      transfer('wallet', 'bank', '1', { key: 'k-1' }), // the key the item before took
      transfer('wallet', 'bank', '1', { refs: [{ ...ref, id: randomUUID(), metadata: {} }] }), // its ref too
      transfer('wallet', 'bank', '1', { conditions: [{ account: 'wallet', min_available: '1000' }] }),
      transfer('wallet', 'euros', '1'),
      transfer('bank', 'wallet', '40', { touched: true }), // exactly what is left
    ];
    const results = await repo.writeBatch(api.db, call(items));
    expect(results.map((r) => (r.ok ? 'ok' : r.error))).toEqual([
      'ok',
      'ok',
      'insufficient_funds',
      'unknown_account',
      'ok',
      'key_taken',
      'duplicate_external_ref',
      'precondition_failed',
      'currency_mismatch',
      'ok',
    ]);
    expect(results[2]).toMatchObject({ account: 'wallet', available: '40', available_after: '-10', overdraft_limit: '0' });
    expect(results[3]).toMatchObject({ postings: [0] });
    expect(results[7]).toMatchObject({ condition: 0, failed: 'min_available_balance', actual: '41' });
    expect(results[9]).toMatchObject({ ok: true, touched: [{ id: 'wallet', postedDebits: '100', postedCredits: '101' }, { id: 'bank' }] });
    const written = [0, 1, 4, 9].map((i) => items[i].id);
    const stored = await api.db.query(`SELECT id FROM transactions WHERE id = ANY($1::uuid[])`, [items.map((i) => i.id)]);
    expect(stored.map((r: { id: string }) => r.id).sort()).toEqual([...written].sort());
    const events = await api.db.query(`SELECT resource_id FROM events WHERE resource_id = ANY($1) ORDER BY xid, seq`, [items.map((i) => i.id)]);
    expect(events.map((e: { resource_id: string }) => e.resource_id)).toEqual(written);
    expect(await api.balance('wallet')).toMatchObject({ posted: '1', available: '1' });
    expect(await booksProblems(api.db, api.client.ledgerId)).toEqual([]);
  });

  it("stores each item's trace context with that item's events, and none (a JSON null) as SQL NULL", async () => {
    const traced = (n: number) => ({ traceparent: `00-${String(n).padStart(32, '0')}-${String(n).padStart(16, '0')}-01` });
    const items = [
      transfer('wallet', 'bank', '1', { trace_context: traced(1) }),
      transfer('wallet', 'bank', '1'),
      transfer('wallet', 'bank', '1', { trace_context: traced(3) }),
    ];
    expect((await repo.writeBatch(api.db, call(items))).every((r) => r.ok)).toBe(true);
    const events: { trace_context: object | null; is_null: boolean }[] = await api.db.query(
      `SELECT trace_context, trace_context IS NULL AS is_null FROM events WHERE resource_id = ANY($1) ORDER BY xid, seq`,
      [items.map((i) => i.id)],
    );
    expect(events).toEqual([
      { trace_context: traced(1), is_null: false },
      { trace_context: null, is_null: true },
      { trace_context: traced(3), is_null: false },
    ]);
  });

  it('refuses a key another call still in flight is writing (BK002) and, alone again, the key as taken', async () => {
    const runner = api.db.createQueryRunner();
    await runner.startTransaction();
    try {
      const first = await repo.writeBatch(runner.manager, call([transfer('wallet', 'bank', '1', { key: 'raced' })]));
      expect(first[0].ok).toBe(true);
      // The second call reads before the first commits, then its insert waits for it.
      const second = repo.writeBatch(api.db, call([transfer('euros', 'euros', '1', { key: 'raced', postings: [] })]));
      await new Promise((r) => setTimeout(r, 200));
      await runner.commitTransaction();
      const failure = await second.then(() => null, (e: unknown) => e);
      expect(failure).toBeInstanceOf(QueryFailedError);
      expect((failure as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe(WRITE_RACED);
    } finally {
      await runner.release();
    }
    const [again] = await repo.writeBatch(api.db, call([transfer('wallet', 'bank', '1', { key: 'raced' })]));
    expect(again).toMatchObject({ error: 'key_taken' });
  });

  /** Balances, transactions, postings and events of the ledger: what a call that writes nothing leaves unchanged. */
  async function footprint() {
    const [row] = await api.db.query(
      `SELECT (SELECT json_agg(b ORDER BY b.account_id) FROM account_balances b WHERE b.ledger_id = $1) AS balances,
         (SELECT count(*) FROM transactions WHERE ledger_id = $1)::int AS transactions,
         (SELECT count(*) FROM postings WHERE ledger_id = $1)::int AS postings,
         (SELECT count(*) FROM events WHERE ledger_id = $1)::int AS events`,
      [api.client.ledgerId],
    );
    return row;
  }

  it('judges a dry run exactly as the write, in order against running totals, and writes nothing', async () => {
    const items = [transfer('wallet', 'bank', '5'), transfer('bank', 'wallet', '6'), transfer('bank', 'wallet', '1000', { touched: true })];
    const before = await footprint();
    const dry = await repo.writeBatch(api.db, call(items, { dry_run: true }));
    expect(await footprint()).toEqual(before);
    const written = await repo.writeBatch(api.db, call(items));
    expect(written.map((r) => (r.ok ? 'ok' : r.error))).toEqual(dry.map((r) => (r.ok ? 'ok' : r.error)));
    expect(written).toEqual(dry);
    expect(dry.map((r) => (r.ok ? 'ok' : r.error))).toEqual(['ok', 'ok', 'insufficient_funds']);
  });

  it('writes nothing of an atomic call with a refused item, but a used key alone (a replay) does not refuse it', async () => {
    await repo.writeBatch(api.db, call([transfer('wallet', 'bank', '10', { key: 'atomic-seen' })]));
    const before = await footprint();
    const refused = await repo.writeBatch(api.db, call([transfer('wallet', 'bank', '1'), transfer('bank', 'ghost', '1')], { atomic: true }));
    expect(refused.map((r) => (r.ok ? 'ok' : r.error))).toEqual(['ok', 'unknown_account']);
    expect(await footprint()).toEqual(before);
    const replayed = await repo.writeBatch(api.db, call([transfer('wallet', 'bank', '1'), transfer('bank', 'wallet', '999999', { key: 'atomic-seen' })], { atomic: true }));
    // The used key is judged first, whatever the balances say now.
    expect(replayed.map((r) => (r.ok ? 'ok' : r.error))).toEqual(['ok', 'key_taken']);
    expect((await footprint()).transactions).toBe(before.transactions + 1);
  });

  it("voids the pending legs a reversal releases and commits a transaction's pending legs, each once", async () => {
    const hold = transfer('wallet', 'bank', '7', {});
    hold.postings = hold.postings?.map((p) => ({ ...p, pending: true }));
    const held = transfer('wallet', 'bank', '3', {});
    held.postings = held.postings?.map((p) => ({ ...p, pending: true }));
    expect((await repo.writeBatch(api.db, call([hold, held]))).every((r) => r.ok)).toBe(true);
    const pendingOf = async (id: string | undefined) =>
      api.db.query(`SELECT id::text, pending, voided_at IS NOT NULL AS voided, committed_at IS NOT NULL AS committed FROM postings WHERE transaction_id = $1 ORDER BY id`, [id]);
    const holdIds = (hold.postings ?? []).map((p) => p.id);
    const before = await api.balance('wallet');
    const release = { ...transfer('wallet', 'bank', '1'), kind: 'reversal', reverses: hold.id, postings: [], voids: holdIds };
    // The same legs twice in one call: the second finds them released already and moves nothing.
    const twice = { ...transfer('wallet', 'bank', '1'), postings: [], voids: holdIds };
    const commit = { commit: held.id, value_date: new Date(), events: [], trace_context: null, idem: null, touched: true };
    const results = await repo.writeBatch(api.db, call([release, twice, commit, { ...commit }], { accounts: ['wallet', 'bank'] }));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await pendingOf(hold.id)).toEqual(holdIds.map((id) => ({ id, pending: true, voided: true, committed: false })));
    expect((await pendingOf(held.id)).every((p: { pending: boolean; committed: boolean }) => !p.pending && p.committed)).toBe(true);
    const after = await api.balance('wallet');
    // The hold's 7 no longer pending, the held 3 posted instead.
    expect(BigInt(after.posted) - BigInt(before.posted)).toBe(3n);
    expect(BigInt(before.pending) - BigInt(after.pending)).toBe(10n);
    expect(await booksProblems(api.db, api.client.ledgerId)).toEqual([]);
  });

  it('computes available balances as the service does (books_available agrees with balanceFigures)', async () => {
    const cases = [
      ['asset', 100n, 30n, 20n, 15n],
      ['expense', 0n, 5n, 0n, 7n],
      ['liability', 30n, 100n, 20n, 15n],
      ['revenue', 9n, 0n, 4n, 0n],
      ['equity', 0n, 0n, 0n, 1n],
    ] as const;
    for (const [type, pdr, pcr, qdr, qcr] of cases) {
      const [row] = await api.db.query(`SELECT books_available($1, $2, $3, $4, $5)::text AS available`, [type, pdr, pcr, qdr, qcr]);
      const totals = { postedDebits: pdr, postedCredits: pcr, pendingDebits: qdr, pendingCredits: qcr };
      expect({ type, available: row.available }).toEqual({ type, available: balanceFigures(type, totals).available.toString() });
    }
  });
});
