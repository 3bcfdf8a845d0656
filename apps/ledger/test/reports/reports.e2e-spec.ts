import { booksStack } from '../books-api';

describe('Reports', () => {
  const api = booksStack('reports', { accounts: ['cash', 'equipment', 'loan', 'capital', 'sales', 'rent', 'eur:cash', 'eur:sales', 'idle'] });

  beforeAll(async () => {
    const at = (day: string) => ({ value_date: `2026-04-${day}T09:00:00Z` });
    await api.transfer('capital', 'cash', '1000', 'USD', at('01')).expect(201);
    await api.transfer('loan', 'cash', '500', 'USD', at('02')).expect(201);
    await api.transfer('sales', 'cash', '300', 'USD', at('03')).expect(201);
    await api.transfer('cash', 'rent', '120', 'USD', at('04')).expect(201);
    await api.transfer('cash', 'equipment', '200', 'USD', at('05')).expect(201);
    await api.transfer('eur:sales', 'eur:cash', '50', 'EUR', at('05')).expect(201);
  });

  it('trial balance: healthy, per-account rows, zero accounts only on request, point in time', async () => {
    const res = await api.get('/reports/trial_balance').expect(200);
    expect(res.body.data).toMatchObject({
      object: 'trial_balance',
      ledger_id: api.client.ledgerId,
      healthy: true,
      totals_by_currency: { USD: { debit: '2120', credit: '2120', residual: '0' }, EUR: { debit: '50', credit: '50', residual: '0' } },
    });
    expect(res.body.data.accounts.find((a: { account: string }) => a.account === 'cash')).toEqual({
      account: 'cash', name: 'cash', type: 'asset', currency: 'USD', posted: '1480', pending: '0', debit_total: '1800', credit_total: '320',
    });
    expect(res.body.data.accounts.map((a: { account: string }) => a.account)).not.toContain('idle');
    expect((await api.get('/reports/trial_balance?include_zero=true').expect(200)).body.data.accounts.map((a: { account: string }) => a.account)).toContain('idle');
    const early = await api.get('/reports/trial_balance?at=2026-04-01T09:00:00Z&currency=usd').expect(200);
    expect(early.body.data.totals_by_currency).toEqual({ USD: { debit: '1000', credit: '1000', residual: '0' } });
  });

  it('balance sheet balances assets against liabilities, equity and retained earnings', async () => {
    const res = await api.get('/reports/balance_sheet').expect(200);
    expect(res.body.data).toMatchObject({ object: 'balance_sheet', healthy: true });
    expect(res.body.data.by_currency.USD).toEqual({
      assets: '1680', liabilities: '500', equity: '1000', retained_earnings: '180', total_liabilities_and_equity: '1680', residual: '0',
    });
  });

  it('income statement over a window, with day buckets', async () => {
    const res = await api.get('/reports/income_statement?from=2026-04-03T00:00:00Z&to=2026-04-05T00:00:00Z&granularity=day').expect(200);
    expect(res.body.data).toMatchObject({
      object: 'income_statement',
      period: { from: '2026-04-03T00:00:00.000Z', to: '2026-04-05T00:00:00.000Z' },
      by_currency: { USD: { revenue: '300', expense: '120', net_income: '180' } },
      granularity: 'day',
    });
    expect(res.body.data.series).toEqual([
      { period_start: '2026-04-03T00:00:00.000Z', period_end: '2026-04-04T00:00:00.000Z', by_currency: { USD: { revenue: '300', expense: '0', net_income: '300' } } },
      { period_start: '2026-04-04T00:00:00.000Z', period_end: '2026-04-05T00:00:00.000Z', by_currency: { USD: { revenue: '0', expense: '120', net_income: '-120' } } },
    ]);
    const all = await api.get('/reports/income_statement').expect(200);
    expect(all.body.data.by_currency.EUR).toEqual({ revenue: '50', expense: '0', net_income: '50' });
    await api.get('/reports/income_statement?granularity=day').expect(422);
    await api.get('/reports/income_statement?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z&granularity=day').expect(422);
  });

  it('cash flow buckets asset changes by the opposite legs', async () => {
    const res = await api.get('/reports/cash_flow?granularity=week&from=2026-04-01T00:00:00Z&to=2026-04-30T00:00:00Z').expect(200);
    expect(res.body.data.by_currency.USD).toEqual({ operating: '180', investing: '0', financing: '1500', uncategorized: '0', net_change: '1680' });
    expect(res.body.data.accounts).toEqual(expect.arrayContaining([{ account: 'cash', name: 'cash', currency: 'USD', net_change: '1480' }]));
    expect(res.body.data.series).toHaveLength(5);
  });

  it('answers CSV for format=csv or Accept: text/csv, the header winning', async () => {
    const csv = await api.get('/reports/trial_balance?format=csv').expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('section,account,name,type,currency,posted,pending,debit_total,credit_total,debit,credit,residual');
    expect(lines).toContain('account,cash,cash,asset,USD,1480,0,1800,320,,,');
    expect(lines).toContain('total,,,,USD,,,,,2120,2120,0');
    const byHeader = await api.get('/reports/balance_sheet').set('Accept', 'text/csv').expect(200);
    expect(byHeader.headers['content-type']).toMatch(/^text\/csv/);
    const headerWins = await api.get('/reports/income_statement?format=csv').set('Accept', 'application/json').expect(200);
    expect(headerWins.body.data.object).toBe('income_statement');
    const cash = await api.get('/reports/cash_flow').set('Accept', 'text/csv').expect(200);
    expect(cash.text.split('\r\n')[0]).toContain('net_change');
    await api.get('/reports/trial_balance?format=xml').expect(422);
    // An ordinal date passes a plain ISO 8601 check but no Date parser (it answered 500; fuzz seed 99).
    for (const route of ['reserves_outstanding', 'trial_balance', 'balance_sheet']) {
      const res = await api.get(`/reports/${route}?at=3985213`).expect(422);
      expect(res.body.error).toEqual(expect.objectContaining({ code: 'invalid_request', param: 'at' }));
    }
    // CSV is offered on report reads only.
    const accounts = await api.get('/accounts').set('Accept', 'text/csv').expect(200);
    expect(accounts.body.object).toBe('list');
    const write = await api.post('/transactions?format=csv', { postings: [] }).expect(422);
    expect(write.body.error.code).toBe('invalid_request');
  });

  it('neutralises formulas in client-written CSV text, keeps amounts numeric, and honours Accept q-values', async () => {
    await api.account('gbp:formula', 'asset', 'GBP', { name: '=HYPERLINK("http://x","y")' });
    await api.account('gbp:other', 'liability', 'GBP', { name: '-2+3' });
    await api.account('gbp:at', 'asset', 'GBP', { name: '@SUM(A1)', metadata: {} });
    await api.transfer('gbp:other', 'gbp:formula', '75', 'GBP').expect(201);
    await api.transfer('gbp:formula', 'gbp:at', '100', 'GBP').expect(201);
    const csv = await api.get('/reports/trial_balance?format=csv&currency=GBP').expect(200);
    const lines = csv.text.trim().split('\r\n');
    expect(lines).toContain('account,gbp:formula,"\'=HYPERLINK(""http://x"",""y"")",asset,GBP,-25,0,75,100,,,');
    expect(lines).toContain("account,gbp:other,'-2+3,liability,GBP,75,0,0,75,,,");
    expect(lines).toContain("account,gbp:at,'@SUM(A1),asset,GBP,100,0,100,0,,,");
    expect(csv.text).not.toMatch(/(^|,)"?[=+@]/m);

    const preferJson = await api.get('/reports/trial_balance?format=csv').set('Accept', 'text/csv;q=0.1, application/json').expect(200);
    expect(preferJson.body.data.object).toBe('trial_balance');
    const preferCsv = await api.get('/reports/trial_balance').set('Accept', 'application/json;q=0.5, text/csv').expect(200);
    expect(preferCsv.headers['content-type']).toMatch(/^text\/csv/);
    const anything = await api.get('/reports/trial_balance?format=csv').set('Accept', '*/*').expect(200);
    expect(anything.headers['content-type']).toMatch(/^text\/csv/);
  });
});
