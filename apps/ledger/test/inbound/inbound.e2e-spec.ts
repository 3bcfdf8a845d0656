import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { BooksApi, booksStack, Json } from '../books-api';

/** The header a bank-side sender computes: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>. */
function sign(secret: string, body: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

describe('Hosted inbound push (reference s.12)', () => {
  const api = booksStack('inbound');
  let other: BooksApi;
  let origin: string;

  /** A plain HTTP push, as a bank or processor sends it: no bearer, only the signature. */
  function push(url: string, body: string, signature?: string) {
    return fetch(url.replace(/^https?:\/\/[^/]+/, origin), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature !== undefined && { 'Bursar-Inbound-Signature': signature }) },
      body,
    });
  }

  async function inboundSource(name: string): Promise<{ id: string; url: string; secret: string }> {
    const { id } = (await api.post('/sources', { name }).expect(201)).body.data;
    const res = await api.post(`/sources/${id}/inbound`, {}).expect(201);
    return { id, url: res.body.data.url, secret: res.body.data.secret };
  }

  beforeAll(async () => {
    await api.t.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(api.t.app.getHttpServer().address() as AddressInfo).port}`;
    other = await BooksApi.start(api.t);
  });

  it('mints the push URL and a secret shown once, sealed at rest; a repeat keeps them, rotate replaces them', async () => {
    const { id } = (await api.post('/sources', { name: 'acme-bank' }).expect(201)).body.data;
    const first = (await api.post(`/sources/${id}/inbound`, {}).expect(201)).body.data;
    expect(first).toEqual({
      object: 'inbound_endpoint',
      source_id: id,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
      url: expect.stringMatching(new RegExp(`/ledger/v1/inbound/sources/${first.token}$`)),
      secret: expect.stringMatching(/^insec_test_/),
      enabled: true,
    });
    const source = (await api.get(`/sources/${id}`).expect(200)).body.data;
    expect(source).toEqual(expect.objectContaining({ inbound_enabled: true, inbound_url: first.url }));

    const [stored] = await api.db.query(`SELECT row_to_json(s)::text AS row FROM reconciliation_sources s WHERE id = $1`, [id]);
    expect(stored.row).not.toContain(first.token);
    expect(stored.row).not.toContain(first.secret);

    const repeat = (await api.post(`/sources/${id}/inbound`, {}).expect(201)).body.data;
    expect(repeat).toEqual({ ...first, secret: undefined });
    expect(repeat).not.toHaveProperty('secret');

    const rotated = (await api.post(`/sources/${id}/inbound`, { rotate: true }).expect(201)).body.data;
    expect(rotated.url).not.toBe(first.url);
    expect(rotated.secret).not.toBe(first.secret);
    const body = JSON.stringify({ external_id: 'x', amount: '1', currency: 'USD', at: '2026-03-01T00:00:00Z' });
    expect((await push(first.url, body, sign(first.secret, body))).status).toBe(404);
    expect((await push(rotated.url, body, sign(rotated.secret, body))).status).toBe(200);

    await other.post(`/sources/${id}/inbound`, {}).expect(404);
    await other.delete(`/sources/${id}/inbound`).expect(404);
    await api.post(`/sources/${id}/inbound`, { rotate: 'yes' }).expect(422);
  });

  it('takes a signed push of several items from a plain fetch, and a redelivery is replayed', async () => {
    const { id, url, secret } = await inboundSource('push-bank');
    const body = JSON.stringify({
      items: [
        { external_id: 'p-1', amount: '1500', currency: 'USD', occurred_at: '2026-03-01T09:00:00Z' },
        { external_id: 'p-2', amount: -200, currency: 'USD', at: '2026-03-01T10:00:00Z', reference_rail: 'ach', reference_kind: 'trace', reference_value: '42' },
        { external_id: 'p-3', amount: '0', currency: 'USD', at: '2026-03-01T10:00:00Z' },
      ],
    });
    const res = await push(url, body, sign(secret, body));
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Json;
    expect(answer).toEqual({
      data: { object: 'inbound_result', received: 3, created: 2, replayed: 0, errors: 1 },
      livemode: false,
      request_id: expect.stringMatching(/^req_/),
    });

    const again = await push(url, body, sign(secret, body));
    expect(((await again.json()) as { data: Json }).data).toEqual({ object: 'inbound_result', received: 3, created: 0, replayed: 2, errors: 1 });

    const rows = (await api.get(`/external_transactions?source_id=${id}`).expect(200)).body.data as Json[];
    expect(rows.map((r) => [r.external_id, r.amount, r.status])).toEqual([
      ['p-2', '-200', 'open'],
      ['p-1', '1500', 'open'],
    ]);
    // Pushing never runs matching, and ingestion emits no per-row events.
    expect((await api.get(`/events?resource_id=${rows[0].id}`).expect(200)).body.data).toEqual([]);
  });

  it('takes one bare item too', async () => {
    const { url, secret } = await inboundSource('single-bank');
    const body = JSON.stringify({ external_id: 'only', amount: '5', currency: 'EUR', at: '2026-03-01T00:00:00Z' });
    const res = await push(url, body, sign(secret, body));
    expect(((await res.json()) as { data: Json }).data).toEqual(expect.objectContaining({ received: 1, created: 1 }));
  });

  it('answers 401 for a missing, malformed, wrong, tampered or stale signature, and writes nothing', async () => {
    const { id, url, secret } = await inboundSource('guarded-bank');
    const body = JSON.stringify({ external_id: 'g-1', amount: '100', currency: 'USD', at: '2026-03-01T00:00:00Z' });
    const tampered = body.replace('100', '900');
    const now = Math.floor(Date.now() / 1000);
    for (const [payload, signature] of [
      [body, undefined],
      [body, 'garbage'],
      [body, sign('insec_test_wrong', body)],
      [tampered, sign(secret, body)],
      [body, sign(secret, body, now - 301)],
      // Far enough ahead that a slow request still finds it outside the 300 s window.
      [body, sign(secret, body, now + 330)],
    ] as const) {
      const res = await push(url, payload, signature);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: Json }).error).toEqual(expect.objectContaining({ code: 'unauthorized' }));
    }
    expect((await api.get(`/external_transactions?source_id=${id}`).expect(200)).body.data).toEqual([]);

    // Any one matching v1 among several is enough; a timestamp inside the tolerance passes.
    const t0 = now - 200;
    const good = sign(secret, body, t0).split(',')[1];
    const res = await push(url, body, `t=${t0},v1=${'0'.repeat(64)},${good}`);
    expect(res.status).toBe(200);
  });

  it('answers 404 for an unknown token or a disabled source, before looking at the signature', async () => {
    const { id, url, secret } = await inboundSource('off-bank');
    const body = JSON.stringify({ external_id: 'o-1', amount: '1', currency: 'USD', at: '2026-03-01T00:00:00Z' });
    expect((await push(`${origin}/ledger/v1/inbound/sources/nope`, body, 'garbage')).status).toBe(404);

    const disabled = await api.delete(`/sources/${id}/inbound`).expect(200);
    expect(disabled.body.data).toEqual({ object: 'inbound_endpoint', source_id: id, token: null, url: null, enabled: false });
    expect((await api.get(`/sources/${id}`).expect(200)).body.data).toEqual(expect.objectContaining({ inbound_enabled: false, inbound_url: null }));
    const res = await push(url, body, sign(secret, body));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: Json }).error.code).toBe('not_found');

    // Enabling again mints a new URL and secret.
    const again = (await api.post(`/sources/${id}/inbound`, {}).expect(201)).body.data;
    expect(again.url).not.toBe(url);
    expect(again.secret).toEqual(expect.any(String));
  });

  it('refuses an empty or oversized push with 422', async () => {
    const { url, secret } = await inboundSource('bulk-bank');
    for (const body of [JSON.stringify({ items: [] }), JSON.stringify({ items: Array.from({ length: 1001 }, (_, i) => ({ external_id: `b${i}` })) })]) {
      const res = await push(url, body, sign(secret, body));
      expect(res.status).toBe(422);
    }
  });
});
