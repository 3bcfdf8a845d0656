import { BooksApi, booksStack } from '../books-api';
import { accessToken } from '../ledger-fixtures';

describe('Account templates, accounts and balances', () => {
  const api = booksStack('accounts');

  describe('templates', () => {
    it('creates an immutable template, refuses a taken name and reads it back', async () => {
      const res = await api
        .post('/account_templates', {
          name: 'wallet',
          accounting_type: 'liability',
          allowed_currencies: ['usd', 'EUR'],
          balance_non_negative: true,
          fund_classification: 'client_held',
          custody_provider: 'bank_a',
          custody_external_id: 'acct-1',
          metadata: { team: 'payments' },
        })
        .expect(201);
      expect(res.body.data).toEqual({
        object: 'account_template',
        name: 'wallet',
        accounting_type: 'liability',
        allowed_currencies: ['USD', 'EUR'],
        balance_non_negative: true,
        description: null,
        fund_classification: 'client_held',
        custody_provider: 'bank_a',
        custody_external_id: 'acct-1',
        metadata: { team: 'payments' },
        created_at: expect.any(String),
      });
      const dup = await api.post('/account_templates', { name: 'wallet', accounting_type: 'asset' }).expect(409);
      expect(dup.body.error).toMatchObject({ code: 'already_exists', param: 'name' });
      await api.get('/account_templates/wallet').expect(200);
      await api.get('/account_templates/nope').expect(404);
      const list = await api.get('/account_templates').expect(200);
      expect(list.body.data.map((x: { name: string }) => x.name)).toEqual(['wallet']);
      // Immutable in the database too, not only for want of a route.
      await expect(api.db.query(`UPDATE account_templates SET description = 'x'`)).rejects.toThrow(/not allowed/);
    });

    it.each([
      [{ name: 'x', accounting_type: 'cash' }, 'accounting_type'],
      [{ accounting_type: 'asset' }, 'name'],
      [{ name: 'y', accounting_type: 'asset', custody_provider: 'p' }, 'custody_external_id'],
    ])('refuses %j with 422 naming %s', async (body, param) => {
      const res = await api.post('/account_templates', body).expect(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
    });

    it('applies a template to accounts and checks the request against it', async () => {
      const acct = await api.account('wallet:alice', 'liability', 'usd', { template: 'wallet' });
      expect(acct).toMatchObject({
        type: 'liability',
        currency: 'USD',
        overdraft_policy: 'none',
        fund_classification: 'client_held',
        custody_provider: 'bank_a',
        custody_external_id: 'acct-1',
        template: 'wallet',
      });
      const noType = await api.post('/accounts', { id: 'wallet:bob', name: 'Bob', currency: 'EUR', template: 'wallet' }).expect(201);
      expect(noType.body.data.type).toBe('liability');
      const cases: [object, string][] = [
        [{ type: 'asset' }, 'type'],
        [{ currency: 'GBP' }, 'currency'],
        [{ overdraft_policy: 'allowed' }, 'overdraft_policy'],
      ];
      for (const [extra, param] of cases) {
        const res = await api.post('/accounts', { id: 'wallet:x', name: 'X', currency: 'USD', template: 'wallet', ...extra }).expect(422);
        expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
      }
      const unknown = await api.post('/accounts', { id: 'w:y', name: 'Y', currency: 'USD', template: 'ghost' }).expect(422);
      expect(unknown.body.error).toMatchObject({ code: 'account_template_unknown', param: 'template' });
    });
  });

  describe('accounts', () => {
    it('creates an account with every field, defaults and currency facts, and emits account.created', async () => {
      const res = await api.post('/accounts', { id: 'cash:usd', name: 'Cash', type: 'asset', currency: 'usd' }).expect(201);
      expect(res.body).toMatchObject({ livemode: false, request_id: expect.stringMatching(/^req_/) });
      expect(res.body.data).toEqual({
        object: 'account',
        id: 'cash:usd',
        name: 'Cash',
        type: 'asset',
        currency: 'USD',
        currency_decimals: 2,
        currency_kind: 'fiat',
        unknown_currency: false,
        overdraft_policy: 'allowed',
        overdraft_limit: '0',
        account_kind: 'standard',
        counterparty_ref: null,
        fund_classification: 'neutral',
        custody_provider: null,
        custody_external_id: null,
        template: null,
        parent_id: null,
        ledgerable_type: null,
        ledgerable_id: null,
        metadata: {},
        lock_version: 1,
        status: 'open',
        closed_at: null,
        closed_by_label: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const points = await api.account('loyalty', 'liability', 'POINTS', { overdraft_policy: 'none', overdraft_limit: '12345678901234567890123' });
      expect(points).toMatchObject({ currency: 'POINTS', unknown_currency: true, currency_decimals: null, overdraft_limit: '12345678901234567890123' });
      const events = await api.events('account.created');
      expect(events.map((e) => e.resource_id)).toEqual(expect.arrayContaining(['cash:usd', 'loyalty']));

      const read = await api.get('/accounts/cash:usd').expect(200);
      expect(read.headers.etag).toMatch(/^"/);
      expect(read.body.data.id).toBe('cash:usd');
      await api.get('/accounts/cash%3Ausd').expect(200);
      await api.get('/accounts/nobody').expect(404);
    });

    it('refuses a taken id with 409 already_exists and bad fields with 422', async () => {
      const dup = await api.post('/accounts', { id: 'cash:usd', name: 'Again', type: 'asset', currency: 'USD' }).expect(409);
      expect(dup.body.error).toMatchObject({ code: 'already_exists', param: 'id' });
      const bad: [object, string][] = [
        [{ id: 'has space' }, 'id'],
        [{ type: 'cash' }, 'type'],
        [{ type: undefined }, 'type'],
        [{ overdraft_policy: 'unlimited' }, 'overdraft_policy'],
        [{ overdraft_limit: '-1' }, 'overdraft_limit'],
        [{ overdraft_limit: 1.5 }, 'overdraft_limit'],
        [{ fund_classification: 'mine' }, 'fund_classification'],
        [{ custody_provider: 'bank' }, 'custody_external_id'],
        [{ ledgerable_id: 'u1' }, 'ledgerable_type'],
        [{ parent_id: 'ghost' }, 'parent_id'],
        [{ metadata: 'x' }, 'metadata'],
      ];
      for (const [extra, param] of bad) {
        const res = await api.post('/accounts', { id: 'bad', name: 'Bad', type: 'asset', currency: 'USD', ...extra });
        expect([res.status, res.body.error?.code, res.body.error?.param]).toEqual([422, 'invalid_request', param]);
      }
    });

    it('lists with filters and cursors', async () => {
      await api.account('rev:a', 'revenue', 'EUR', { fund_classification: 'operator', counterparty_ref: 'cp1' });
      await api.account('rev:b', 'revenue', 'EUR', { parent_id: 'rev:a', ledgerable_type: 'user', ledgerable_id: 'u1' });
      const byType = await api.get('/accounts?type=revenue').expect(200);
      expect(byType.body.data.map((a: { id: string }) => a.id)).toEqual(['rev:b', 'rev:a']);
      const filters: [string, string[]][] = [
        ['currency=eur', ['rev:b', 'rev:a', 'wallet:bob']],
        ['fund_classification=operator', ['rev:a']],
        ['counterparty_ref=cp1', ['rev:a']],
        ['parent_id=rev:a', ['rev:b']],
        ['ledgerable_type=user&ledgerable_id=u1', ['rev:b']],
        ['custody_provider=bank_a', ['wallet:bob', 'wallet:alice']],
        ['kind=restricted', []],
      ];
      for (const [q, ids] of filters) {
        const res = await api.get(`/accounts?${q}`).expect(200);
        expect([q, res.body.data.map((a: { id: string }) => a.id)]).toEqual([q, ids]);
      }
      const first = await api.get('/accounts?limit=2').expect(200);
      expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
      const second = await api.get(`/accounts?limit=2&cursor=${first.body.next_cursor}`).expect(200);
      expect(second.body.data[0].id).not.toBe(first.body.data[1].id);
      await api.get('/accounts?limit=201').expect(422);
    });

    it('updates settable fields, refuses fixed ones, honours If-Match and emits classification_changed', async () => {
      const read = await api.get('/accounts/rev:a').expect(200);
      const stale = read.headers.etag;
      const res = await api.patch('/accounts/rev:a', { name: 'Sales', metadata: { k: 'v' }, fund_classification: 'client_held' }).expect(200);
      expect(res.body.data).toMatchObject({ name: 'Sales', metadata: { k: 'v' }, fund_classification: 'client_held', lock_version: 2 });
      const changed = await api.events('account.classification_changed');
      expect(changed[0]).toMatchObject({ resource_id: 'rev:a' });
      const conflict = await api.patch('/accounts/rev:a', { name: 'Later' }).set('If-Match', stale).expect(409);
      expect(conflict.body.error.code).toBe('precondition_failed');
      const fresh = (await api.get('/accounts/rev:a').expect(200)).headers.etag;
      await api.patch('/accounts/rev:a', { name: 'Later' }).set('If-Match', fresh).expect(200);
      for (const [field, value] of [['currency', 'USD'], ['type', 'asset'], ['overdraft_policy', 'none'], ['id', 'zzz']]) {
        const r = await api.patch('/accounts/rev:a', { [field]: value }).expect(409);
        expect(r.body.error).toMatchObject({ code: 'immutable_field', param: field });
      }
      await api.patch('/accounts/rev:a', { currency: 'EUR' }).expect(200);
      await api.patch('/accounts/rev:a', { name: '' }).expect(422);
      await api.patch('/accounts/rev:a', { custody_provider: 'x' }).expect(422);
      await api.patch('/accounts/rev:a', { parent_id: 'rev:b' }).expect(422);
      await api.patch('/accounts/nobody', { name: 'x' }).expect(404);
      const cleared = await api.patch('/accounts/wallet:bob', { custody_provider: null, custody_external_id: null }).expect(200);
      expect(cleared.body.data).toMatchObject({ custody_provider: null, custody_external_id: null });
    });
  });

  describe('isolation', () => {
    it('keeps books apart per ledger and per organization', async () => {
      // A second ledger of the same organization, through a client pinned to it.
      const client = await api.fx.client({ organizationId: api.client.organizationId, scopes: ['ledger:read', 'ledger:write'] });
      const sibling = new BooksApi(api.t, await accessToken(api.t, client), client);
      await sibling.post('/accounts', { id: 'cash:usd', name: 'Other cash', type: 'asset', currency: 'USD' }).expect(201);
      expect((await sibling.get('/accounts').expect(200)).body.data.map((a: { id: string }) => a.id)).toEqual(['cash:usd']);
      expect((await api.get('/accounts/cash:usd').expect(200)).body.data.name).toBe('Cash');
      expect((await sibling.get('/accounts/cash:usd').expect(200)).body.data.name).toBe('Other cash');
      await sibling.get('/account_templates/wallet').expect(404);

      const stranger = await BooksApi.start(api.t);
      await stranger.get('/accounts/rev:a').expect(404);
      await stranger.get('/account_templates/wallet').expect(404);
      expect((await stranger.get('/accounts').expect(200)).body.data).toEqual([]);
    });
  });
});
