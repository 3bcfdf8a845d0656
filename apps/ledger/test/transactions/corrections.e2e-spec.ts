import { booksStack, leg } from '../books-api';

describe('Corrections: reversals and refunds', () => {
  const api = booksStack('corrections', { accounts: ['cash', 'sales', 'fees', 'eur:cash', 'eur:sales'] });

  const sale = (amount: string, extra: Record<string, unknown> = {}) => api.transfer('sales', 'cash', amount, 'USD', extra).expect(201);

  it('reverses a whole transaction once, links both ways and emits reversal_created before reversed', async () => {
    const original = (await sale('500')).body.data;
    const res = await api.post(`/transactions/${original.id}/reverse?expand=balances`).expect(201);
    const reversal = res.body.data;
    expect(reversal).toMatchObject({ reverses: original.id, reversed_by: null, status: 'posted' });
    expect(reversal.postings.map((p: { account: string; direction: string; amount: string }) => [p.account, p.direction, p.amount])).toEqual([
      ['cash', 'credit', '500'],
      ['sales', 'debit', '500'],
    ]);
    expect(reversal.balances).toEqual(expect.arrayContaining([expect.objectContaining({ account: 'cash', posted: '0' })]));
    const read = await api.get(`/transactions/${original.id}`).expect(200);
    expect(read.body.data).toMatchObject({ reversed_by: reversal.id, status: 'archived' });
    expect(await api.balance('cash')).toMatchObject({ posted: '0' });

    const again = await api.post(`/transactions/${original.id}/reverse`).expect(409);
    expect(again.body.error).toMatchObject({ code: 'already_reversed', details: { reversed_by: reversal.id } });
    const refund = await api.post(`/transactions/${original.id}/refund`, { amount: '1' }).expect(409);
    expect(refund.body.error.code).toBe('already_reversed');

    const events = (await api.get('/events?limit=200').expect(200)).body.data as { type: string; resource_id: string }[];
    const mine = events.filter((e) => ['transaction.reversal_created', 'transaction.reversed'].includes(e.type)).reverse();
    expect(mine.map((e) => [e.type, e.resource_id])).toEqual([
      ['transaction.reversal_created', reversal.id],
      ['transaction.reversed', original.id],
    ]);
    await api.post('/transactions/00000000-0000-0000-0000-000000000000/reverse').expect(404);
    const noKey = await api.post(`/transactions/${original.id}/reverse`, {}, null).expect(422);
    expect(noKey.body.error.code).toBe('missing_idempotency_key');
  });

  it('records each correction\'s events with the transaction it wrote and the original as the reversal left it', async () => {
    const eventData = async (type: string, resourceId: string) => (await api.events(type)).find((e) => e.resource_id === resourceId)?.data;
    const read = async (id: string) => (await api.get(`/transactions/${id}`).expect(200)).body.data;
    // Accounts of its own: the other tests count on the balances of theirs.
    await api.account('ev:cash', 'asset');
    await api.account('ev:sales', 'revenue');
    const evSale = (amount: string, extra: Record<string, unknown> = {}) => api.transfer('ev:sales', 'ev:cash', amount, 'USD', extra).expect(201);
    // A posted original with an external ref: both events are built before the write.
    const posted = (await evSale('70', { external_refs: [{ rail: 'card', kind: 'auth', value: `auth-${Date.now()}` }] })).body.data;
    const reversal = (await api.post(`/transactions/${posted.id}/reverse`).expect(201)).body.data;
    expect(await eventData('transaction.reversal_created', reversal.id)).toEqual(reversal);
    const archived = await read(posted.id);
    expect(archived).toMatchObject({ status: 'archived', reversed_by: reversal.id, external_refs: [expect.objectContaining({ rail: 'card' })] });
    // Copies taken inside a write name the log index as it stood then; the books log seals on its own time.
    const unsealed = (t: unknown) => ({ ...(t as object), log_index: null });
    expect(unsealed(await eventData('transaction.reversed', posted.id))).toEqual(unsealed(archived));
    // A pending original: the write voids its legs at its own time, which the reversed event shows.
    const pending = (
      await api.book([leg('debit', 'ev:cash', '30', 'USD', { pending: true }), leg('credit', 'ev:sales', '30', 'USD', { pending: true })]).expect(201)
    ).body.data;
    await api.post(`/transactions/${pending.id}/reverse`).expect(201);
    const voided = await read(pending.id);
    expect(voided.postings.map((p: { voided_at: string | null }) => p.voided_at === null)).toEqual([false, false]);
    expect(unsealed(await eventData('transaction.reversed', pending.id))).toEqual(unsealed(voided));
    const refund = (await api.post(`/transactions/${(await evSale('20')).body.data.id}/refund`, { amount: '5' }).expect(201)).body.data;
    expect(await eventData('transaction.refund_created', refund.id)).toEqual(refund);
  });

  it('reverses only one of many concurrent attempts', async () => {
    const original = (await sale('40')).body.data;
    const statuses = await Promise.all(Array.from({ length: 8 }, () => api.post(`/transactions/${original.id}/reverse`).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 409)).toBe(true);
  });

  it('refunds part of a transaction, scaled leg by leg, and tracks what remains', async () => {
    const original = (await api.book([leg('debit', 'cash', '1000'), leg('credit', 'sales', '901'), leg('credit', 'fees', '99')]).expect(201)).body.data;
    const first = await api.post(`/transactions/${original.id}/refund`, { amount: '333', metadata: { reason: 'damaged' } }).expect(201);
    expect(first.body.data).toMatchObject({
      reverses: original.id,
      refunds: original.id,
      refund_amount: '333',
      refund_currency: 'USD',
      metadata: { reason: 'damaged', _refund_of: original.id },
    });
    const legs = first.body.data.postings.map((p: { account: string; direction: string; amount: string }) => [p.account, p.direction, p.amount]);
    // 901 * 333 / 1000 = 300.033 -> 300; 99 * 333 / 1000 = 32.967 -> 33; credits sum to 333.
    expect(legs).toEqual([
      ['cash', 'credit', '333'],
      ['sales', 'debit', '300'],
      ['fees', 'debit', '33'],
    ]);
    const viaReverse = await api.post(`/transactions/${original.id}/reverse`, { amount: '600', currency: 'usd' }).expect(201);
    expect(viaReverse.body.data.refund_amount).toBe('600');
    const over = await api.post(`/transactions/${original.id}/refund`, { amount: '68' }).expect(422);
    expect(over.body.error).toMatchObject({ code: 'partial_refund_exceeds_original', details: { remaining_by_currency: { USD: '67' } } });
    await api.post(`/transactions/${original.id}/refund`, { amount: '67' }).expect(201);
    expect(await api.balance('fees')).toMatchObject({ posted: '0' });
    expect(await api.balance('sales')).toMatchObject({ posted: '0' });
    const refunds = await api.get(`/transactions/${original.id}/refunds`).expect(200);
    expect(refunds.body).toMatchObject({ object: 'list', has_more: false });
    expect(refunds.body.data.map((r: { refund_amount: string }) => r.refund_amount)).toEqual(['333', '600', '67']);
    await api.get('/transactions/00000000-0000-0000-0000-000000000000/refunds').expect(404);
    await api.post('/transactions/00000000-0000-0000-0000-000000000000/refund', { amount: '1' }).expect(404);
    expect((await api.events('transaction.refund_created')).length).toBeGreaterThanOrEqual(3);
    // What is left after refunds is all a reversal takes back: nothing here.
    const reversal = await api.post(`/transactions/${original.id}/reverse`).expect(201);
    expect(reversal.body.data.postings).toEqual([]);
  });

  it('needs a currency to refund a multi-currency original and scales the other legs too', async () => {
    const original = (
      await api
        .book([leg('debit', 'cash', '1100'), leg('credit', 'sales', '1100'), leg('debit', 'eur:cash', '1000', 'EUR'), leg('credit', 'eur:sales', '1000', 'EUR')])
        .expect(201)
    ).body.data;
    const missing = await api.post(`/transactions/${original.id}/refund`, { amount: '100' }).expect(422);
    expect(missing.body.error).toMatchObject({ code: 'refund_currency_required', param: 'currency' });
    const wrong = await api.post(`/transactions/${original.id}/refund`, { amount: '100', currency: 'GBP' }).expect(422);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_request', param: 'currency' });
    const res = await api.post(`/transactions/${original.id}/refund`, { amount: '100', currency: 'EUR' }).expect(201);
    const amounts = Object.fromEntries(res.body.data.postings.map((p: { account: string; amount: string }) => [p.account, p.amount]));
    expect(amounts).toEqual({ cash: '110', sales: '110', 'eur:cash': '100', 'eur:sales': '100' });
    const noAmount = await api.post(`/transactions/${original.id}/refund`, {}).expect(422);
    expect(noAmount.body.error.param).toBe('amount');
    const tooMuch = await api.post(`/transactions/${original.id}/refund`, { amount: '901', currency: 'EUR' }).expect(422);
    expect(tooMuch.body.error.details.remaining_by_currency).toEqual({ USD: '990', EUR: '900' });
  });
});
