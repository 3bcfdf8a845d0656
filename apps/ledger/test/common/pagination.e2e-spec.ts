import { ledgerApi } from '../ledger-api-client';
import { accessToken } from '../ledger-fixtures';
import { booksStack } from '../books-api';

describe('Pagination: opaque cursors, limit bounds, include_total', () => {
  const stack = booksStack('pagination', { scopes: ['ledger:read', 'ledger:write', 'ledger:clients:read'] });
  const api = ledgerApi(stack);
  const ids: string[] = [];

  beforeAll(async () => {
    ids.push(stack.client.ledgerId);
    // Same-millisecond rows on purpose: the cursor must keep Postgres' microseconds and the id tie-break.
    const more = await Promise.all([1, 2, 3, 4].map((n) => stack.fx.ledger(stack.client.organizationId, 'test', `L${n}`)));
    const rows: { id: string }[] = await stack.db.query('SELECT id FROM ledgers WHERE id = ANY($1) ORDER BY created_at, id', [more]);
    ids.push(...rows.map((r) => r.id));
  });

  async function walk(limit: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const { body } = await api.get(`/ledgers?limit=${limit}${query}`).expect(200);
      seen.push(...body.data.map((l: { id: string }) => l.id));
      expect(body.has_more).toBe(body.next_cursor !== null);
      cursor = body.next_cursor;
    } while (cursor);
    return seen;
  }

  it('walks every row once, in order, whatever the page size', async () => {
    expect(await walk(2)).toEqual(ids);
    expect(await walk(1)).toEqual(ids);
    expect(await walk(200)).toEqual(ids);
  });

  it('gives total only when include_total=true', async () => {
    const plain = await api.get('/ledgers?limit=2').expect(200);
    expect(plain.body).not.toHaveProperty('total');
    const counted = await api.get('/ledgers?limit=2&include_total=true').expect(200);
    expect(counted.body).toMatchObject({ total: 5, has_more: true });
  });

  it('keeps a cursor working after its row is gone', async () => {
    const first = await api.get('/ledgers?limit=2').expect(200);
    await stack.db.query('DELETE FROM ledgers WHERE id = $1', [ids[1]]);
    const next = await api.get(`/ledgers?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`).expect(200);
    expect(next.body.data.map((l: { id: string }) => l.id)).toEqual([ids[2], ids[3]]);
    ids.splice(1, 1);
  });

  it.each(['0', '201', '-1', '1.5', 'ten'])('refuses limit=%s with 422 invalid_request', async (limit) => {
    const res = await api.get(`/ledgers?limit=${limit}`).expect(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'limit' });
  });

  it('refuses tampered cursors and cursors of another list or tenant', async () => {
    const { body } = await api.get('/ledgers?limit=1').expect(200);
    const cursor: string = body.next_cursor;
    const [payload, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ v: 1, k: '1970-01-01 00:00:00+00', i: ids[0] })).toString('base64url');
    const stranger = await stack.fx.client();
    await stack.fx.ledger(stranger.organizationId, 'test');
    await stack.fx.client({ organizationId: stack.client.organizationId });
    const strangerCursor = (await ledgerApi({ t: stack.t, token: await accessToken(stack.t, stranger) }).get('/ledgers?limit=1')).body
      .next_cursor;
    const otherList = (await api.get('/oauth_clients?limit=1')).body.next_cursor;
    for (const bad of ['garbage', `${forged}.${mac}`, `${payload}.${mac.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`, otherList, strangerCursor]) {
      expect(bad).toEqual(expect.any(String));
      const res = await api.get(`/ledgers?cursor=${encodeURIComponent(bad)}`).expect(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'cursor' });
    }
  });
});
