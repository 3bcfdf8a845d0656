import request from 'supertest';
import { ControlTestApp, startControlTestApp } from '../control-test-app';
import { bearer, createAgent, createWorkspace } from '../control-fixtures';
import { startTestIdentityProvider, TestIdentityProvider } from '../test-identity-provider';

/** Limits far below production so a handful of requests reach them; the counting is the same. */
const AGENT_LIMIT = 4;
const PERSON_LIMIT = 6;

describe('rate limits', () => {
  let idp: TestIdentityProvider;
  let t: ControlTestApp;
  let alice: string;
  let bob: string;
  let keys: string[];

  beforeAll(async () => {
    idp = await startTestIdentityProvider(['alice', 'bob']);
    t = await startControlTestApp('rate_limits', {
      ...idp.env,
      AGENT_RATE_LIMIT_PER_MINUTE: String(AGENT_LIMIT),
      WORKSPACE_RATE_LIMIT_PER_MINUTE: String(PERSON_LIMIT),
    });
    [alice, bob] = await Promise.all([idp.token('alice'), idp.token('bob')]);
    // bob sets up, so alice's whole allowance is left for the test.
    await createWorkspace(t.app, bob, { name: 'Limits', slug: 'limits' });
    keys = [(await createAgent(t.app, bob, 'limits')).api_key, (await createAgent(t.app, bob, 'limits', { name: 'b' })).api_key];
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const http = () => request(t.app.getHttpServer());

  it('allows each agent key its limit per minute, then answers 429 rate_limited with Retry-After', async () => {
    const budget = () => http().post('/control/v1/agent/budgets').set(bearer(keys[0])).send({ budget_cents: 10 });
    const results = await Promise.all(Array.from({ length: AGENT_LIMIT + 2 }, budget));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(AGENT_LIMIT).fill(201), 429, 429]);
    const [ok] = results.filter((r) => r.status === 201);
    expect(ok.headers['x-ratelimit-limit']).toBe(String(AGENT_LIMIT));
    const [refused] = results.filter((r) => r.status === 429);
    expect(refused.body).toEqual({ error: { message: expect.any(String), code: 'rate_limited', hint: expect.any(String) } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // Another key has its own allowance.
    await http().post('/control/v1/agent/budgets').set(bearer(keys[1])).send({ budget_cents: 10 }).expect(201);
  });

  it('allows each person their limit on workspace routes, whatever the workspace', async () => {
    const results = [];
    for (let i = 0; i < PERSON_LIMIT; i++) results.push((await http().get('/control/v1/workspaces').set(bearer(alice))).status);
    expect(results).toEqual(Array(PERSON_LIMIT).fill(200));
    const res = await http().get('/control/v1/workspaces/limits').set(bearer(alice)).expect(429);
    expect(res.body.error.code).toBe('rate_limited');
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    await http().get('/control/v1/invitations/lookup?token=inv_x').set(bearer(alice)).expect(429);
  });

  it('never throttles the key set or cosignature verification', async () => {
    const n = Math.max(AGENT_LIMIT, PERSON_LIMIT) + 3;
    const jwks = await Promise.all(Array.from({ length: n }, () => http().get('/.well-known/jwks.json')));
    expect(jwks.every((r) => r.status !== 429)).toBe(true);
    const verify = await Promise.all(Array.from({ length: n }, () => http().post('/control/v1/cosign/verify').send({})));
    expect(verify.every((r) => r.status !== 429)).toBe(true);
  });
});
