import { randomUUID } from 'node:crypto';
import { decodeJwt, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import request from 'supertest';
import { accessToken, LedgerFixtures } from '../ledger-fixtures';
import { startLedgerTestApp } from '../ledger-test-app';
import { booksStack } from '../books-api';

/*
 * Tenancy matrix, generated from the service's own OpenAPI document (the openapi test holds every
 * registered route to it, so a new route cannot skip this): every authenticated operation whose
 * path carries an id is called with the id of a resource the owner holds, by a client of another
 * organization, of the same organization in live mode, of another ledger of the organization, and
 * by a client lacking the operation's scope. Foreign callers get 404 (the capability-less one 403),
 * never data. Then the token forgeries, each 401.
 */

interface Route {
  method: string;
  path: string;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const ALL_SCOPES = ['ledger:read', 'ledger:write', 'ledger:period_close', 'ledger:clients:read', 'ledger:clients:write'];
/**
 * Organization-level routes: ledgers are outside ledger selection, and OAuth clients are managed
 * per organization and mode (a client names its ledger on creation), so another ledger's client of
 * the same organization and mode may use them (reference).
 */
const ORGANIZATION_ROUTES = /^\/ledger\/v1\/(ledgers|oauth_clients)\//;
/** The capability-less caller holds only ledger:period_close: routes needing it may refuse its empty body. */
const PERIOD_CLOSE_ROUTES = /^\/ledger\/v1\/period_closes\//;

describe('tenancy and identity matrix (ledger)', () => {
  const stack = booksStack('tenancy_matrix', { scopes: ALL_SCOPES, accounts: ['cash', ['revenue', 'asset']] });
  let routes: Route[];
  const callers: Record<string, string> = {};
  /** A resource id of the owner for each collection path (`/ledger/v1/accounts`). */
  const ownIds = new Map<string, string>();

  const http = () => request(stack.t.app.getHttpServer());
  const call = (route: Route, path: string, token: string) =>
    http()[route.method as 'get'](path).set('Authorization', `Bearer ${token}`).set(JSON_HEADERS).send(route.method === 'get' ? undefined : {});

  beforeAll(async () => {
    const as = (token: string) => ({ Authorization: `Bearer ${token}`, ...JSON_HEADERS });
    await http().post('/ledger/v1/transactions').set(as(stack.token)).set('Idempotency-Key', 'matrix-1').send({
      postings: [
        { account: 'cash', direction: 'debit', amount: '100', currency: 'USD' },
        { account: 'revenue', direction: 'credit', amount: '100', currency: 'USD' },
      ],
    }).expect(201);

    const other = await stack.fx.client({ scopes: ALL_SCOPES });
    const live = await stack.fx.client({ mode: 'live', organizationId: stack.client.organizationId, scopes: ALL_SCOPES });
    const otherLedger = await stack.fx.client({ organizationId: stack.client.organizationId, scopes: ALL_SCOPES });
    // The owner's own ledger, but only a scope that no id-bearing operation accepts alone.
    const lacking = await stack.fx.run('create-client', '--organization', stack.client.organizationId, '--ledger', stack.client.ledgerId, '--mode', 'test', '--scopes', 'ledger:period_close');
    callers['another organization'] = await accessToken(stack.t, other);
    callers['another mode (live)'] = await accessToken(stack.t, live);
    callers['another ledger'] = await accessToken(stack.t, otherLedger);
    callers['lacking the capability'] = await accessToken(stack.t, {
      organizationId: stack.client.organizationId, ledgerId: stack.client.ledgerId, clientId: String(lacking.client_id), clientSecret: String(lacking.client_secret),
    });

    const doc = (await http().get('/ledger/v1/openapi.json').expect(200)).body;
    routes = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'patch', 'put', 'delete'].includes(method) || !op.security?.length) continue;
        if (/\{(id|account_id|ledger_id)\}/.test(path)) routes.push({ method, path });
      }
    }
    // The owner's ids: the first item of each collection it can list.
    for (const collection of new Set(routes.map((r) => r.path.split('/{')[0]))) {
      const res = await http().get(collection).set(as(stack.token));
      const first = res.status === 200 && Array.isArray(res.body.data) ? res.body.data[0] : undefined;
      if (first?.id) ownIds.set(collection, String(first.id));
    }
    ownIds.set('/ledger/v1/ledgers', stack.client.ledgerId);
    // A client of its own for the client routes, so the DELETE below never removes the owner's.
    const spare = await stack.fx.run('create-client', '--organization', stack.client.organizationId, '--ledger', stack.client.ledgerId, '--mode', 'test', '--scopes', 'ledger:read');
    ownIds.set('/ledger/v1/oauth_clients', String(spare.client_id));
  });

  const concrete = (route: Route) => {
    const collection = route.path.split('/{')[0];
    const id = ownIds.get(collection) ?? randomUUID();
    return { id, path: route.path.replace(/\{[^}]+\}/, encodeURIComponent(id)).replace(/\{[^}]+\}/g, 'x'), seeded: ownIds.has(collection) };
  };

  it('covers every id-bearing route of the document, most with a real resource of the owner', () => {
    expect(routes.length).toBeGreaterThan(40);
    const seeded = routes.filter((r) => concrete(r).seeded);
    // The owner's own reads of its seeded resources succeed: the ids below are real.
    expect(seeded.length).toBeGreaterThan(routes.length / 3);
    process.stdout.write(`ledger tenancy matrix: ${routes.length} routes with an id, ${seeded.length} with a seeded resource\n`);
  });

  it('lets the owner read its seeded resources (so the foreign 404s below are about tenancy)', async () => {
    for (const route of routes.filter((r) => r.method === 'get' && !/\{[^}]+\}.*\{/.test(r.path) && concrete(r).seeded)) {
      const res = await call(route, concrete(route).path, stack.token);
      expect([route.path, res.status]).toEqual([route.path, 200]);
    }
  });

  it.each(['another organization', 'another mode (live)', 'another ledger', 'lacking the capability'])(
    'answers every id-bearing route called by %s with 404/403, never data',
    async (caller) => {
      const wrong: string[] = [];
      for (const route of routes) {
        if (caller === 'another ledger' && ORGANIZATION_ROUTES.test(route.path)) continue;
        const { id, path } = concrete(route);
        const res = await call(route, path, callers[caller]);
        const allowed =
          caller === 'lacking the capability'
            ? [403, 404, 405, ...(PERIOD_CLOSE_ROUTES.test(route.path) ? [422] : [])]
            : route.method === 'get'
              ? [404]
              : [400, 403, 404, 405, 409, 422];
        const leaks = res.status < 300 || JSON.stringify(res.body ?? '').includes(`"id":"${id}"`);
        if (leaks || !allowed.includes(res.status)) wrong.push(`${route.method.toUpperCase()} ${route.path} -> ${res.status}`);
      }
      expect(wrong).toEqual([]);
    },
  );

  describe('token forgeries answer 401', () => {
    const attempt = async (token: string) => {
      const res = await http().get('/ledger/v1/accounts').set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    };
    const claims = () => decodeJwt(stack.token);

    it('alg none', async () => attempt(new UnsecuredJWT(claims()).encode()));
    it('a foreign key id', async () =>
      attempt(await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: 'foreign' }).sign(new Uint8Array(32).fill(7))));
    it('HS256 signed with another secret', async () =>
      attempt(await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(new TextEncoder().encode('x'.repeat(32)))));
    it('a control identity token (RS256, the identity provider as issuer)', async () => {
      const { privateKey } = await generateKeyPair('RS256');
      await attempt(await new SignJWT({ ...claims(), iss: 'https://identity.example' }).setProtectedHeader({ alg: 'RS256', kid: 'idp' }).sign(privateKey));
    });

    it('expired: a valid token a day later', async () => {
      const token = await accessToken(stack.t, stack.client);
      await http().get('/ledger/v1/accounts').set('Authorization', `Bearer ${token}`).expect(200);
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask'] });
      try {
        jest.setSystemTime(Date.now() + 24 * 3600 * 1000);
        await attempt(token);
      } finally {
        jest.useRealTimers();
      }
    });

    it('wrong issuer: signed with the same secret by a deployment at another address', async () => {
      const elsewhere = await startLedgerTestApp('tenancy_matrix_iss', {
        LEDGER_SECRET_KEY: stack.t.settings.LEDGER_SECRET_KEY,
        LEDGER_PUBLIC_URL: 'https://ledger.elsewhere.example',
      });
      try {
        const token = await accessToken(elsewhere, await LedgerFixtures.of(elsewhere).client());
        await http().get('/ledger/v1/organizations/me').set('Authorization', `Bearer ${token}`).expect(401);
      } finally {
        await elsewhere.close();
      }
    });
  });
});
