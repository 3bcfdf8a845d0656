import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { suiteStack } from '@bursar/testing';
import { startIdentifiedTestApp } from '../control-test-app';
import { bearer, createAgent, createWorkspace, seatMember } from '../control-fixtures';

/**
 * The contract's control envelope is `{error: {message, code}}`: `message` a string for humans,
 * `code` a string or null. Ours adds `hint` (the reference SDK reads it). Each case drives one error
 * path through the real HTTP stack and checks all three, and that no ledger-only field leaks in.
 */
function expectControlEnvelope(res: request.Response, status: number, code: string | null) {
  const where = `${res.status} ${JSON.stringify(res.body)}`;
  expect({ where, status: res.status }).toEqual({ where, status });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  const error = res.body.error as Record<string, unknown>;
  expect(error).toHaveProperty('code', code);
  for (const field of ['message', 'hint'] as const) {
    expect({ where, field, ok: typeof error[field] === 'string' && (error[field] as string).trim().length > 0 }).toEqual({ where, field, ok: true });
  }
  for (const absent of ['request_id', 'livemode', 'docs_url']) expect(error).not.toHaveProperty(absent);
  return error;
}

describe('every control failure carries message, code and hint', () => {
  let owner: string;
  let member: string;
  let key: string;
  const http = () => request(s.t.app.getHttpServer());

  const s = suiteStack(() => startIdentifiedTestApp('error-envelopes', ['owner', 'member']));
  beforeAll(async () => {
    owner = await s.idp.token('owner');
    member = await s.idp.token('member');
    const workspace = await createWorkspace(s.t.app, owner, { name: 'Envelopes', slug: 'envelopes' });
    await seatMember(s.t.app, workspace.id, 'member', 'member');
    key = (await createAgent(s.t.app, owner, 'envelopes', { max_budget_cents: 1000 })).api_key;
  });

  it('names a missing field (400) and a wrong one (422) in the hint', async () => {
    const missing = expectControlEnvelope(await http().post('/control/v1/workspaces').set(bearer(owner)).send({ slug: 'x' }), 400, null);
    expect(missing.hint).toMatch(/required body field `name`/);
    const wrong = expectControlEnvelope(await http().post('/control/v1/workspaces').set(bearer(owner)).send({ name: 5, slug: 'y' }), 422, null);
    expect(wrong.hint).toMatch(/`name` \(.+\)/);
  });

  it.each([
    ['malformed JSON', '{"name":', 'application/json', /valid JSON/],
    ['a body over 1 MB', JSON.stringify({ name: 'x'.repeat(1_100_000) }), 'application/json', /1 MB/],
    ['a NUL character', '{"name":"a\\u0000b","slug":"nul"}', 'application/json', /NUL/],
  ])('refuses %s with a hint about the body', async (_, body, type, hint) => {
    const res = await http().post('/control/v1/workspaces').set(bearer(owner)).set('Content-Type', type).send(body);
    expect(expectControlEnvelope(res, 400, null).hint).toMatch(hint);
  });

  it('says a body sent as text/plain must be JSON', async () => {
    const res = await http().post('/control/v1/workspaces').set(bearer(owner)).set('Content-Type', 'text/plain').send('name=x');
    expect(expectControlEnvelope(res, 400, null).hint).toMatch(/Content-Type: application\/json/);
  });

  it('answers each credential failure with its code and a hint', async () => {
    expectControlEnvelope(await http().get('/control/v1/workspaces'), 401, 'identity_token_required');
    expectControlEnvelope(await http().get('/control/v1/workspaces').set(bearer('not.a.jwt')), 401, 'invalid_identity_token');
    expectControlEnvelope(await http().get(`/control/v1/agent/budgets/${randomUUID()}`), 401, 'runtime_key_required');
    expectControlEnvelope(await http().get(`/control/v1/agent/budgets/${randomUUID()}`).set(bearer('krt_test_nope')), 401, 'invalid_runtime_key');
    const forbidden = await http().post('/control/v1/workspaces/envelopes/agents').set(bearer(member)).send({ name: 'x' });
    expect(expectControlEnvelope(forbidden, 403, 'insufficient_role').hint).toMatch(/capability/);
  });

  it('answers an unknown route and an unknown record with 404 and a hint', async () => {
    expect(expectControlEnvelope(await http().get('/control/v1/nope'), 404, null).hint).toMatch(/OpenAPI/);
    expectControlEnvelope(await http().delete('/control/v1/workspaces'), 404, null);
    const record = expectControlEnvelope(await http().get(`/control/v1/agent/budgets/${randomUUID()}`).set(bearer(key)), 404, null);
    expect(record.hint).toMatch(/budget/);
    expectControlEnvelope(await http().get('/control/v1/workspaces/no-such-workspace').set(bearer(owner)), 404, null);
  });

  it('answers coded refusals with their codes, their fields and a hint', async () => {
    const ceiling = expectControlEnvelope(await http().post('/control/v1/agent/budgets').set(bearer(key)).send({ budget_cents: 1001 }), 422, 'budget_ceiling');
    expect(ceiling).toMatchObject({ ceiling_cents: 1000, requested_cents: 1001 });
    expectControlEnvelope(await http().post('/control/v1/agent/actions').set(bearer(key)).send({}), 422, 'idempotency_key_required');
    expectControlEnvelope(await http().post('/control/v1/cosign/verify'), 400, 'authorization_required');
  });
});
