import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { suiteStack } from '@bursar/testing';
import { runControlAdmin } from '../../src/admin/control-admin';
import { CosignService } from '../../src/cosign/cosign.service';
import { CosignKeysService } from '../../src/cosign/cosign-keys.service';
import { bearer } from '../control-fixtures';
import { agentWithPolicy, COSIGN_ISSUER, DecisionStack, pay, startDecisionStack, TestAgent } from '../decision-fixtures';

type CosignStack = DecisionStack & { server: Server; base: string; agent: TestAgent };

/** A decision stack listening on a loopback port (executors fetch the JWKS over HTTP), with one capped agent. */
async function startCosignStack(label: string, env: Record<string, string> = {}): Promise<CosignStack> {
  const s = await startDecisionStack(label, env);
  const server: Server = s.t.app.getHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 }, 1_000_000);
  const close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await s.close();
  };
  return { ...s, server, base, agent, close };
}

describe('cosignatures', () => {

  const s = suiteStack(() => startCosignStack('cosign'));

  const http = () => request(s.server);
  const authorize = async (amount = 1_000) => {
    const res = await pay(s.t.app, s.agent, { amount_cents: amount, counterparty: 'acme' }).expect(201);
    return { intent: res.body.data, decision: res.body.decision, token: res.body.cosignature as string };
  };
  const verify = (token: string) => http().post('/control/v1/cosign/verify').send({ authorization: token });
  const consume = (token: string) => http().post('/control/v1/cosign/consume').set(bearer(token)).send({ consumed_by: 'executor-1' });
  const signed = (claims: Record<string, unknown>, intent: { id: string; amount_cents: number }) =>
    s.t.app.get(CosignService).sign(
      {
        intent_id: intent.id,
        workspace_id: s.workspaceId,
        agent_id: s.agent.id,
        budget_id: s.agent.budgetId,
        action_type: 'payment.create',
        resource: 'acme',
        amount_cents: intent.amount_cents,
        currency: 'USD',
        policy_version: 'pv_x',
        frame_hash: 'fh_x',
      },
      claims,
    ) as Promise<{ token: string }>;

  it('issues an ES256 JWS with kid that verifies against our JWKS URL (jose createRemoteJWKSet)', async () => {
    const { intent, decision, token } = await authorize();
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'JWT' });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${s.base}/.well-known/jwks.json`)), { issuer: COSIGN_ISSUER });
    expect(payload).toMatchObject({
      iss: COSIGN_ISSUER,
      sub: s.agent.id,
      jti: intent.id,
      intent_id: intent.id,
      workspace_id: s.workspaceId,
      budget_id: s.agent.budgetId,
      action_type: 'payment.create',
      resource: 'acme',
      amount_cents: 1_000,
      currency: 'USD',
      policy_version: decision.policy_version,
      frame_hash: decision.frame_hash,
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(300);
  });

  it('publishes the key set unauthenticated and cacheable', async () => {
    const res = await http().get('/.well-known/jwks.json').expect(200);
    expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    expect(res.body.keys[0]).toEqual({ kty: 'EC', crv: 'P-256', use: 'sig', alg: 'ES256', kid: expect.any(String), x: expect.any(String), y: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain('"d"');
  });

  it('verifies a valid cosignature with the full result, by body or bearer header', async () => {
    const { intent, decision, token } = await authorize(2_500);
    const expected = {
      valid: true,
      reason: null,
      intent_id: intent.id,
      agent_id: s.agent.id,
      action_type: 'payment.create',
      resource: 'acme',
      amount_cents: 2_500,
      currency: 'USD',
      policy_version: decision.policy_version,
      frame_hash: decision.frame_hash,
      expires_at: expect.any(String),
    };
    expect((await verify(token).expect(200)).body).toEqual({ data: expected });
    expect((await http().post('/control/v1/cosign/verify').set(bearer(token)).expect(200)).body.data).toEqual(expected);
  });

  it('answers 400 authorization_required without a token (an empty string counts as none)', async () => {
    for (const path of ['verify', 'consume']) {
      const none = await http().post(`/control/v1/cosign/${path}`).expect(400);
      expect(none.body.error.code).toBe('authorization_required');
      expect((await http().post(`/control/v1/cosign/${path}`).send({ authorization: '' }).expect(400)).body.error.code).toBe('authorization_required');
    }
  });

  it.each([
    ['malformed', async () => 'not-a-jwt'],
    ['malformed', async () => 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln'],
    [
      'unknown_key',
      async () => {
        const { token } = await authorize();
        const [, payload, sig] = token.split('.');
        return `${Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'nope', typ: 'JWT' })).toString('base64url')}.${payload}.${sig}`;
      },
    ],
    [
      'bad_signature',
      async () => {
        const { token } = await authorize();
        const [h, p, sig] = token.split('.');
        const flipped = Buffer.from(sig, 'base64url');
        flipped[5] ^= 0xff;
        return `${h}.${p}.${flipped.toString('base64url')}`;
      },
    ],
    ['expired', async () => (await signed({ exp: Math.floor(Date.now() / 1000) - 10 }, (await authorize()).intent)).token],
    ['not_yet_valid', async () => (await signed({ nbf: Math.floor(Date.now() / 1000) + 600 }, (await authorize()).intent)).token],
    ['wrong_issuer', async () => (await signed({ iss: 'https://elsewhere.test' }, (await authorize()).intent)).token],
    ['unknown_intent', async () => (await signed({}, { id: '00000000-0000-4000-8000-000000000000', amount_cents: 5 })).token],
    [
      'amount_mismatch',
      async () => {
        const { intent } = await authorize(700);
        return (await signed({}, { ...intent, amount_cents: 701 })).token;
      },
    ],
  ])('reports %s as 422 {valid: false, reason}', async (reason, make) => {
    const token = await make();
    expect((await verify(token).expect(422)).body).toEqual({ data: { valid: false, reason } });
    expect((await consume(token).expect(422)).body).toEqual({ data: { valid: false, reason } });
  });

  it('consumes once: the second consume and later verifies say already_settled', async () => {
    const { intent, token } = await authorize();
    expect((await consume(token).expect(200)).body.data).toMatchObject({ valid: true, intent_id: intent.id });
    const spent = { data: { valid: false, reason: 'already_settled' }, error: { message: expect.any(String), code: 'already_consumed' } };
    expect((await consume(token).expect(422)).body).toEqual(spent);
    expect((await verify(token).expect(422)).body).toEqual(spent);
    const [row] = await s.t.app.get(DataSource).query(`SELECT consumed_by FROM intents WHERE id = $1`, [intent.id]);
    expect(row.consumed_by).toBe('executor-1');
  });

  it('gives exactly one 200 among 50 concurrent consumes of one cosignature', async () => {
    const { token } = await authorize();
    const answers = await Promise.all(Array.from({ length: 50 }, () => consume(token)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    const losers = answers.filter((r) => r.status === 422);
    expect(losers).toHaveLength(49);
    expect(losers.every((r) => r.body.error.code === 'already_consumed')).toBe(true);
  });

  it('a settled intent no longer verifies', async () => {
    const { intent, token } = await authorize();
    await http().post(`/control/v1/agent/payment_intents/${intent.id}/complete`).set(bearer(s.agent.key)).expect(200);
    const settled = (await verify(token).expect(422)).body;
    expect(settled).toEqual({ data: { valid: false, reason: 'already_settled' } });
  });

  it('stores private keys sealed, never in the clear', async () => {
    const rows = await s.t.app.get(DataSource).query(`SELECT private_jwk_sealed FROM cosign_keys`);
    for (const row of rows) expect(row.private_jwk_sealed).toMatch(/^v2\.[A-Za-z0-9_-]{8}\./);
  });
});

describe('cosigning key rotation', () => {
  // Short on purpose: replicas reload every second, executors may cache the JWKS for one, so a
  // rotated key may sign 3 s after the rotation (validated: longer than reload + cache lifetime).
  const timing = { COSIGN_KEY_RELOAD_MS: '1000', COSIGN_JWKS_MAX_AGE_SECONDS: '1', COSIGN_KEY_ACTIVATION_DELAY_MS: '3000' };

  const s = suiteStack(() => startCosignStack('cosign_rotation', timing));

  const authorize = async () => (await pay(s.t.app, s.agent, { amount_cents: 100, counterparty: 'acme' }).expect(201)).body.cosignature as string;
  const kidOf = (token: string) => decodeProtectedHeader(token).kid;
  const jwksKids = async () => {
    const res = await request(s.server).get('/.well-known/jwks.json').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=1');
    return res.body.keys.map((k: { kid: string }) => k.kid) as string[];
  };
  /** Another replica on the same database: its own key cache, loaded before the rotation. */
  const replica = async () => {
    const other = new CosignKeysService(s.t.app.get(DataSource), s.t.settings);
    await other.onModuleInit();
    return other;
  };

  it('publishes a rotated key at once, keeps signing with the old one until activation, then signs with the new one', async () => {
    const oldKid = kidOf(await authorize());
    const other = await replica();
    const rotated = await s.t.app.get(CosignKeysService).rotate();
    const newKid = rotated.kid;
    const activatesAt = rotated.activates_at.getTime();
    expect(activatesAt - rotated.created_at.getTime()).toBeGreaterThanOrEqual(2_999);
    // A verifier that fetches the set right after the rotation and keeps it.
    const early = createLocalJWKSet({ keys: (await request(s.server).get('/.well-known/jwks.json')).body.keys });
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, newKid]));

    const tokens: string[] = [];
    const signers = () => Promise.all([s.t.app.get(CosignKeysService), other].map(async (r) => (await r.signingKey())?.kid));
    while (Date.now() < activatesAt - 100) {
      const token = await authorize();
      tokens.push(token);
      expect(kidOf(token)).toBe(oldKid);
      // The replica that has not reloaded yet signs with the old key too, and lists the new one once it reloads.
      expect(await signers()).toEqual([oldKid, oldKid]);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(tokens.length).toBeGreaterThan(5);
    expect((await other.jwks()).keys.map((k) => k.kid)).toContain(newKid);

    await new Promise((r) => setTimeout(r, Math.max(0, activatesAt - Date.now() + 50)));
    // Both replicas switch at the activation time itself, whenever they last reloaded.
    expect(await signers()).toEqual([newKid, newKid]);
    const after = await authorize();
    expect(kidOf(after)).toBe(newKid);
    tokens.push(after);

    // Every cosignature issued verifies with the set fetched right after the rotation, and with today's.
    const now = createRemoteJWKSet(new URL(`${s.base}/.well-known/jwks.json`));
    for (const token of tokens) {
      await jwtVerify(token, early);
      await jwtVerify(token, now);
      await request(s.server).post('/control/v1/cosign/verify').send({ authorization: token }).expect(200);
    }
  });

  it('keeps verifying cosignatures of retired keys after further rotations', async () => {
    const before = await authorize();
    await s.t.app.get(CosignKeysService).rotate();
    const printed = await runControlAdmin(['rotate-cosign-key'], s.t.app.get(DataSource), s.t.settings);
    // The CLI says when its key starts signing.
    expect(Date.parse(printed.activates_at as string) - Date.parse(printed.created_at as string)).toBeGreaterThanOrEqual(2_999);
    expect(await jwksKids()).toContain(kidOf(before));
    await jwtVerify(before, createRemoteJWKSet(new URL(`${s.base}/.well-known/jwks.json`)));
    await request(s.server).post('/control/v1/cosign/verify').send({ authorization: before }).expect(200);
    await expect(runControlAdmin(['nope'], s.t.app.get(DataSource), s.t.settings)).rejects.toThrow('unknown command');
  });
});

describe('cosignatures when cosigning is not configured', () => {
  const s = suiteStack(() => startDecisionStack('cosign_off', { COSIGN_ISSUER: '' }));

  it('publishes an empty key set and leaves cosignature out of allowed decisions', async () => {
    expect((await request(s.t.app.getHttpServer()).get('/.well-known/jwks.json').expect(200)).body).toEqual({ keys: [] });
    const agent = await agentWithPolicy(s, { per_transaction_cap_cents: 50_000 });
    const res = await pay(s.t.app, agent, { amount_cents: 100 }).expect(201);
    expect(res.body).not.toHaveProperty('cosignature');
    expect(res.body.decision.outcome).toBe('allowed');
  });
});
