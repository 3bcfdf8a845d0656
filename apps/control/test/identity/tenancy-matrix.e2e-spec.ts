import { createPublicKey, randomUUID } from 'node:crypto';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { bearer, createAgent, createWorkspace, seatMember } from '../control-fixtures';
import { ControlTestApp, startControlTestApp } from '../control-test-app';
import { startTestIdentityProvider, TEST_AUDIENCE, TestIdentityProvider } from '../test-identity-provider';

/*
 * Tenancy matrix, generated from the service's own OpenAPI document (the coverage test holds every
 * registered route to it, so a new route cannot skip this): every operation whose path carries an
 * id is called with the id of a resource of the owner's workspace or agent, by the owner of another
 * workspace (through its own workspace and through the victim's), by another agent, by an agent of
 * the other mode, and by a member without the capability for writes. Foreign callers get 404
 * (403 where the role lacks the capability), never data. Then the token forgeries, each 401.
 */

interface Route {
  method: string;
  path: string;
  /** The workspace capability the document says the route needs (`x-required-capability`). */
  capability?: string;
}

describe('tenancy and identity matrix (control)', () => {
  let idp: TestIdentityProvider;
  let t: ControlTestApp;
  let routes: Route[];
  const tokens: Record<string, string> = {};
  const agentKeys: Record<string, string> = {};
  /** A resource id of the victim for each collection path, with the slug placeholder kept. */
  const ownIds = new Map<string, string>();

  const http = () => request(t.app.getHttpServer());
  const call = (route: Route, path: string, auth: string) =>
    http()[route.method as 'get'](path).set(bearer(auth)).send(route.method === 'get' ? undefined : {});
  const isAgentRoute = (route: Route) => route.path.startsWith('/control/v1/agent/');

  beforeAll(async () => {
    idp = await startTestIdentityProvider(['owner', 'outsider', 'member']);
    t = await startControlTestApp('tenancy_matrix', { ...idp.env, COSIGN_ISSUER: 'https://control.bursar.test' });
    for (const sub of ['owner', 'outsider', 'member']) tokens[sub] = await idp.token(sub);
    const victim = await createWorkspace(t.app, tokens.owner, { name: 'Victim', slug: 'victim' });
    await createWorkspace(t.app, tokens.outsider, { name: 'Other', slug: 'other' });
    await seatMember(t.app, victim.id, 'member', 'member');
    const agent = await createAgent(t.app, tokens.owner, 'victim', { name: 'buyer' });
    agentKeys.victim = agent.api_key;
    agentKeys.sibling = (await createAgent(t.app, tokens.owner, 'victim', { name: 'sibling' })).api_key;
    agentKeys.live = (await createAgent(t.app, tokens.owner, 'victim', { name: 'live', mode: 'live' })).api_key;
    agentKeys.foreign = (await createAgent(t.app, tokens.outsider, 'other', { name: 'stranger' })).api_key;

    // A budget and an authorized payment of the victim agent, so its agent routes have real ids.
    const [{ id: budgetId }] = await t.app.get(DataSource).query(
      `INSERT INTO budgets (workspace_id, agent_id, budget_cents, currency, status) VALUES ($1, $2, 100000, 'USD', 'active') RETURNING id`,
      [victim.id, agent.id],
    );
    const intent = await http().post('/control/v1/agent/payment_intents').set(bearer(agent.api_key))
      .send({ budget_id: budgetId, amount_cents: 100, counterparty: 'acme', idempotency_key: 'matrix-1' });
    if (intent.body.data?.id) ownIds.set('/control/v1/agent/payment_intents', String(intent.body.data.id));

    const doc = (await http().get('/control/v1/openapi.json').expect(200)).body;
    routes = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
      for (const [method, op] of Object.entries(item as Record<string, { security?: unknown[]; 'x-required-capability'?: string }>)) {
        if (!['get', 'post', 'patch', 'put', 'delete'].includes(method) || !op.security?.length) continue;
        if (/\/\{[a-z_]*id\}/.test(path)) routes.push({ method, path, capability: op['x-required-capability'] });
      }
    }
    // The victim's ids: the first item of each collection its owner or agent can list.
    for (const collection of new Set(routes.map((r) => r.path.split(/\/\{[a-z_]*id\}/)[0]))) {
      const listPath = collection.replace('{workspace_slug}', 'victim');
      const res = await http().get(listPath).set(bearer(collection.startsWith('/control/v1/agent/') ? agent.api_key : tokens.owner));
      const first = res.status === 200 && Array.isArray(res.body.data) ? res.body.data[0] : undefined;
      if (first?.id && !ownIds.has(collection)) ownIds.set(collection, String(first.id));
    }
    ownIds.set('/control/v1/workspaces/{workspace_slug}/agents', agent.id);
    ownIds.set('/control/v1/workspaces/{workspace_slug}/budgets', String(budgetId));
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const concrete = (route: Route, slug = 'victim') => {
    const collection = route.path.split(/\/\{[a-z_]*id\}/)[0];
    const id = ownIds.get(collection) ?? randomUUID();
    const path = route.path
      .replace('{workspace_slug}', slug)
      .replace(/\{[a-z_]*id\}/, id)
      .replace(/\{[^}]+\}/g, randomUUID());
    return { id, path, seeded: ownIds.has(collection) };
  };

  it('covers every id-bearing route of the document, most with a real resource of the victim', () => {
    expect(routes.length).toBeGreaterThan(20);
    const seeded = routes.filter((r) => concrete(r).seeded);
    expect(seeded.length).toBeGreaterThan(routes.length / 3);
    process.stdout.write(`control tenancy matrix: ${routes.length} routes with an id, ${seeded.length} with a seeded resource\n`);
  });

  const foreign: [string, (r: Route) => { auth: string; slug?: string } | null][] = [
    ['the owner of another workspace, through the victim workspace', (r) => (isAgentRoute(r) ? null : { auth: tokens.outsider })],
    ['the owner of another workspace, through its own workspace', (r) => (isAgentRoute(r) ? null : { auth: tokens.outsider, slug: 'other' })],
    ['an agent of another workspace', (r) => (isAgentRoute(r) ? { auth: agentKeys.foreign } : null)],
    ['another agent of the same workspace', (r) => (isAgentRoute(r) ? { auth: agentKeys.sibling } : null)],
    ['an agent of the other mode', (r) => (isAgentRoute(r) ? { auth: agentKeys.live } : null)],
  ];

  it.each(foreign)('answers every id-bearing route called by %s with 404, never data', async (_caller, as) => {
    const wrong: string[] = [];
    for (const route of routes) {
      const caller = as(route);
      if (!caller) continue;
      const { id, path } = concrete(route, caller.slug);
      const res = await call(route, path, caller.auth);
      const allowed = route.method === 'get' ? [403, 404] : [400, 403, 404, 409, 422];
      const leaks = res.status < 300 || JSON.stringify(res.body ?? '').includes(`"id":"${id}"`);
      if (leaks || !allowed.includes(res.status)) wrong.push(`${route.method.toUpperCase()} ${route.path} -> ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('refuses a member every id-bearing write (its role lacks the capability): 403', async () => {
    const writes = routes.filter((r) => !isAgentRoute(r) && r.method !== 'get' && r.capability !== 'read');
    expect(writes.length).toBeGreaterThan(5);
    const wrong: string[] = [];
    for (const route of writes) {
      const res = await call(route, concrete(route).path, tokens.member);
      if (res.status !== 403) wrong.push(`${route.method.toUpperCase()} ${route.path} -> ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('lets a member call the id-bearing POSTs that only read (replays), declared read in the document', async () => {
    const reads = routes.filter((r) => !isAgentRoute(r) && r.method === 'post' && r.capability === 'read');
    expect(reads.map((r) => r.path)).toEqual(expect.arrayContaining([expect.stringMatching(/payment_intents\/\{id\}\/replay$/)]));
    const wrong: string[] = [];
    for (const route of reads) {
      const res = await call(route, concrete(route).path, tokens.member);
      if (![200, 404].includes(res.status)) wrong.push(`POST ${route.path} -> ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  describe('token forgeries answer 401', () => {
    const attempt = async (token: string) => {
      const res = await http().get('/control/v1/workspaces').set(bearer(token));
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_identity_token');
    };
    const claims = () => decodeJwt(tokens.owner);
    /** The provider's public key as PEM text: what an attacker would use as an HS256 secret. */
    const publicPem = async () => {
      const { keys } = (await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
      return createPublicKey({ key: keys[0] as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    };

    it('accepts the genuine token (the forgeries below differ from it)', async () => {
      await http().get('/control/v1/workspaces').set(bearer(tokens.owner)).expect(200);
    });
    it('alg none', async () => attempt(new UnsecuredJWT(claims()).encode()));
    it('HS256 signed with the provider public key', async () =>
      attempt(await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid: 'test-idp-key' }).sign(new TextEncoder().encode(await publicPem()))));
    it('expired', async () => attempt(await idp.forge({ sub: 'owner' }, Math.floor(Date.now() / 1000) - 60)));
    it('wrong audience', async () => attempt(await idp.token('owner', 'https://elsewhere.test')));
    it('wrong issuer: a real token of another provider, right audience', async () => {
      const stranger = await startTestIdentityProvider(['owner']);
      try {
        await attempt(await stranger.token('owner'));
      } finally {
        await stranger.close();
      }
    });
    it('a foreign key id', async () => {
      const { generateKeyPair } = await import('jose');
      const { privateKey } = await generateKeyPair('RS256');
      await attempt(
        await new SignJWT({ sub: 'owner' }).setProtectedHeader({ alg: 'RS256', kid: 'foreign' }).setIssuer(idp.issuer).setAudience(TEST_AUDIENCE)
          .setExpirationTime('5m').sign(privateKey),
      );
    });
    it('a ledger access token (HS256, ledger issuer)', async () => {
      const ledgerLike = await new SignJWT({ scope: 'ledger:read', mode: 'test', tenant_id: randomUUID(), client_id: 'c' })
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).setIssuer('http://ledger.example').setSubject('c').setIssuedAt().setExpirationTime('1h')
        .sign(new Uint8Array(32).fill(3));
      await attempt(ledgerLike);
      const res = await http().post('/control/v1/agent/payment_intents').set(bearer(ledgerLike)).send({});
      expect(res.status).toBe(401);
    });

    it('refuses a cosignature forged with HS256 over the cosign public key, with none, and with a foreign kid', async () => {
      const jwks = (await http().get('/.well-known/jwks.json').expect(200)).body as { keys: Record<string, unknown>[] };
      const { keys } = jwks;
      expect([JSON.stringify(jwks), keys.length > 0]).toEqual([JSON.stringify(jwks), true]);
      const pem = createPublicKey({ key: keys[0] as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
      const payload = { sub: randomUUID(), amount_cents: 100, iss: 'x' };
      const { generateKeyPair } = await import('jose');
      const { privateKey } = await generateKeyPair('ES256');
      const forged = [
        await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: String(keys[0].kid) }).setExpirationTime('5m').sign(new TextEncoder().encode(pem)),
        new UnsecuredJWT(payload).setExpirationTime('5m').encode(),
        await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: 'foreign' }).setExpirationTime('5m').sign(privateKey),
      ];
      for (const authorization of forged) {
        const res = await http().post('/control/v1/cosign/verify').send({ authorization });
        // The cosign contract answers a refused cosignature as {data:{valid:false}}, never valid.
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.body.data?.valid ?? false).toBe(false);
      }
    });
  });
});
