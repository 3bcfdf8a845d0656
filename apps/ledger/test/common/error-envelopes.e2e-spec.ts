import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { booksStack, Json } from '../books-api';
import { accessToken } from '../ledger-fixtures';

/**
 * The contract: every failure carries `error.code`, `message`, `hint` and `docs_url` (plus `param`
 * and `details.fields` for a field at fault), beside top-level `livemode` and `request_id`. Each
 * case below drives one error path through the real HTTP stack and checks every one of them.
 */
function expectFullEnvelope(res: request.Response, status: number, code: string) {
  const where = `${res.status} ${JSON.stringify(res.body)}`;
  expect({ where, status: res.status }).toEqual({ where, status });
  const error = res.body.error as Json;
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(error.code).toBe(code);
  for (const field of ['message', 'hint', 'request_id'] as const) {
    expect({ where, field, ok: typeof error[field] === 'string' && (error[field] as string).trim().length > 0 }).toEqual({ where, field, ok: true });
  }
  expect(new URL(String(error.docs_url)).hash).toBe(`#${code}`);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
  expect(error.request_id).toBe(res.body.request_id);
  expect(typeof res.body.livemode).toBe('boolean');
  return error;
}

describe('every ledger failure carries the whole error envelope', () => {
  const api = booksStack('error-envelopes', { accounts: ['cash', 'deposits'] });
  let readOnlyToken: string;
  const http = () => request(api.t.app.getHttpServer());

  beforeAll(async () => {
    readOnlyToken = await accessToken(api.t, await api.fx.client({ scopes: ['ledger:read'] }));
  });

  it('names the missing field in param, details.fields and the hint', async () => {
    const error = expectFullEnvelope(await api.post('/accounts', { name: 'x', type: 'asset', currency: 'USD' }), 422, 'invalid_request');
    expect(error.param).toBe('id');
    expect(error.details).toEqual({ fields: { id: ['is required'] } });
    expect(error.hint).toMatch(/required body field `id`/);
  });

  it('names a field of the wrong type and what it expects', async () => {
    const error = expectFullEnvelope(await api.post('/accounts', { id: 42, name: 'x', type: 'asset', currency: 'USD' }), 422, 'invalid_request');
    expect(error.param).toBe('id');
    expect(error.hint).toMatch(/`id` \(.+\)/);
  });

  it('points the hint of a service-side refusal at its field', async () => {
    const error = expectFullEnvelope(await api.get('/transactions?expand=nope'), 422, 'invalid_request');
    expect(error).toMatchObject({ param: 'expand', hint: expect.stringMatching(/^Change `expand` as the message says \(Cannot expand nope/) });
  });

  it('names a bad query parameter as such', async () => {
    const error = expectFullEnvelope(await api.get('/accounts?limit=0'), 422, 'invalid_request');
    expect(error.param).toBe('limit');
    expect(error.hint).toMatch(/query parameter `limit`/);
  });

  it('says a body sent as text/plain must be JSON', async () => {
    const res = await http()
      .post('/ledger/v1/accounts')
      .set('Authorization', `Bearer ${api.token}`)
      .set('Idempotency-Key', randomUUID())
      .set('Content-Type', 'text/plain')
      .send('id=cash2');
    expect(expectFullEnvelope(res, 422, 'invalid_request').hint).toMatch(/Content-Type: application\/json \(this request said text\/plain\)/);
  });

  it.each([
    ['malformed JSON', '{"id":', 'application/json', 422, /valid JSON/],
    ['a body that is not gzip', 'not gzip', 'application/json', 422, /Content-Encoding/],
    ['a body over 1 MB', JSON.stringify({ name: 'x'.repeat(1_100_000) }), 'application/json', 422, /1 MB/],
    ['a NUL character', '{"id":"a\\u0000b"}', 'application/json', 422, /NUL/],
  ])('refuses %s with invalid_request and a hint about the body', async (label, body, type, status, hint) => {
    const req = http().post('/ledger/v1/accounts').set('Authorization', `Bearer ${api.token}`).set('Idempotency-Key', randomUUID());
    if (label.includes('gzip')) req.set('Content-Encoding', 'gzip');
    const res = await req.set('Content-Type', type).send(body);
    expect(expectFullEnvelope(res, status, 'invalid_request').hint).toMatch(hint);
  });

  it.each([
    ['no token', undefined],
    ['a token that is not one', 'Bearer not-a-token'],
    ['a Basic header', 'Basic Y2xpZW50OnNlY3JldA=='],
  ])('refuses %s with unauthorized', async (_, authorization) => {
    const req = http().get('/ledger/v1/accounts');
    if (authorization) req.set('Authorization', authorization);
    expect(expectFullEnvelope(await req, 401, 'unauthorized').hint).toMatch(/oauth\/token/);
  });

  it('refuses a token lacking the scope with insufficient_scope', async () => {
    const res = await http()
      .post('/ledger/v1/accounts')
      .set('Authorization', `Bearer ${readOnlyToken}`)
      .set('Idempotency-Key', randomUUID())
      .send({ id: 'x', name: 'x', type: 'asset', currency: 'USD' });
    expectFullEnvelope(res, 403, 'insufficient_scope');
    expect(res.headers['www-authenticate']).toMatch(/insufficient_scope/);
  });

  it('answers an unknown route and an unknown record with not_found', async () => {
    expect(expectFullEnvelope(await api.get('/nope'), 404, 'not_found').hint).toMatch(/OpenAPI/);
    expectFullEnvelope(await http().put('/ledger/v1/accounts').set('Authorization', `Bearer ${api.token}`), 404, 'not_found');
    expectFullEnvelope(await api.get('/accounts/no-such-account'), 404, 'not_found');
    expectFullEnvelope(await api.get(`/transactions/${randomUUID()}`), 404, 'not_found');
  });

  it('answers the write refusals with their codes', async () => {
    const legs = [
      { account: 'cash', amount: '10', currency: 'USD', direction: 'debit' },
      { account: 'deposits', amount: '10', currency: 'USD', direction: 'credit' },
    ];
    const keyless = expectFullEnvelope(await api.post('/transactions', { postings: legs }, null), 422, 'missing_idempotency_key');
    expect(keyless.hint).toMatch(/Idempotency-Key/);
    expectFullEnvelope(await api.post('/accounts', { id: 'cash', name: 'cash', type: 'asset', currency: 'USD' }), 409, 'already_exists');
    expectFullEnvelope(await api.post('/transactions', { postings: [legs[0], { ...legs[1], amount: '9' }] }), 422, 'unbalanced');
    expectFullEnvelope(await api.transfer('deposits', 'nowhere', '10'), 422, 'unknown_account');
    const tx = (await api.transfer('deposits', 'cash', '10').expect(201)).body.data as Json;
    expect(expectFullEnvelope(await api.delete(`/transactions/${String(tx.id)}`), 405, 'invalid_request').hint).toMatch(/reverse/);
    const stale = await api.patch('/accounts/cash', { name: 'renamed' }).set('If-Match', '"stale"');
    expectFullEnvelope(stale, 409, 'precondition_failed');
  });

  it('answers the token endpoint in RFC 6749 form, with a hint too', async () => {
    const res = await http().post('/oauth/token').type('form').send({ grant_type: 'password' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String), hint: expect.stringMatching(/\w{10}/) });
  });
});
