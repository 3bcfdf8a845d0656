import { booksStack } from '../books-api';
import { booksProblems } from '@bursar/testing';

describe('Books under concurrent requests', () => {
  const api = booksStack('concurrency', { accounts: ['bank', 'wallet', 'merchant'] });

  it('applies 200 parallel transfers between two accounts exactly, refusing only what would overdraw', async () => {
    await api.transfer('wallet', 'bank', '1500').expect(201); // credit: funds the wallet with 150 spends' worth
    const results = await Promise.all(Array.from({ length: 200 }, () => api.transfer('merchant', 'wallet', '10')));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s !== 201 && s !== 422)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(150);
    const refused = results.filter((r) => r.status === 422);
    expect(refused.every((r) => r.body.error.code === 'insufficient_funds')).toBe(true);
    expect(await api.balance('wallet')).toEqual({ object: 'balance', account: 'wallet', currency: 'USD', posted: '0', pending: '0', available: '0' });
    expect(await api.balance('merchant')).toMatchObject({ posted: '1500' });
    const spent = 150;
    const [{ count }] = await api.db.query(`SELECT count(*)::int AS count FROM transactions WHERE ledger_id = $1`, [api.client.ledgerId]);
    expect(count).toBe(1 + spent);
    expect(await booksProblems(api.db, api.client.ledgerId)).toEqual([]);
  });

  it('writes once for 50 parallel retries of one idempotency key', async () => {
    const before = await api.balance('bank');
    const results = await Promise.all(Array.from({ length: 50 }, () => api.transfer('merchant', 'bank', '3', 'USD', {}, 'same-key-50')));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => ![200, 201, 409].includes(s))).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('in_progress');
    const ids = new Set(results.filter((r) => r.status < 300).map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    const [{ count }] = await api.db.query(`SELECT count(*)::int AS count FROM transactions WHERE ledger_id = $1 AND idempotency_key = 'same-key-50'`, [
      api.client.ledgerId,
    ]);
    expect(count).toBe(1);
    expect(BigInt((await api.balance('bank')).posted)).toBe(BigInt(before.posted) + 3n);
    const replay = await api.transfer('merchant', 'bank', '3', 'USD', {}, 'same-key-50').expect(200);
    expect(replay.body.data.id).toBe([...ids][0]);
    expect(await booksProblems(api.db, api.client.ledgerId)).toEqual([]);
  });

  it('fails only the bad requests of a concurrent burst (group commit keeps them apart)', async () => {
    await api.post('/period_closes', { period_start: '2020-01-01T00:00:00Z', period_end: '2021-01-01T00:00:00Z', closed_by_label: 'ops' }).expect(201);
    await api.transfer('merchant', 'bank', '1', 'USD', { external_refs: [{ rail: 'ach', kind: 'trace', value: 'taken' }] }).expect(201);
    const before = BigInt((await api.balance('bank')).posted);
    const bad = [
      () => api.transfer('merchant', 'bank', '1', 'USD', { value_date: '2020-06-01T00:00:00Z' }),
      () => api.transfer('merchant', 'bank', '1', 'USD', { external_refs: [{ rail: 'ach', kind: 'trace', value: 'taken' }] }),
      () => api.transfer('merchant', 'ghost', '1'),
      () => api.transfer('bank', 'wallet', '1'),
    ];
    const requests = Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? bad[(i - 5) / 10] : () => api.transfer('merchant', 'bank', '2')));
    const results = await Promise.all(requests.map((r) => r()));
    const codes = results.map((r) => (r.status === 201 ? 'ok' : r.body.error.code));
    expect(codes.filter((c) => c !== 'ok').sort()).toEqual(['duplicate_external_ref', 'insufficient_funds', 'period_closed', 'unknown_account']);
    expect(BigInt((await api.balance('bank')).posted)).toBe(before + 72n);
    expect(await booksProblems(api.db, api.client.ledgerId)).toEqual([]);
  });
});
