import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { suiteStack } from '@bursar/testing';
import { CONSOLE_CLIENT_ID } from '../../src/dev-identity/dev-identity-provider';
import type { ControlTestApp } from '../control-test-app';
import { DEV_IDENTITY_AUDIENCE, DEV_IDENTITY_SECRET, startDevIdentityStack } from './dev-identity-stack';
import { bearer } from '../control-fixtures';

const CONSOLE = 'http://localhost:3003/';

/** A browser's part of the authorization-code flow: cookies kept, redirects followed by hand. */
class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(new URL(url, this.base), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  }

  /** Follows redirects until one leaves the provider (to the console), or a page is shown. */
  async follow(res: Response): Promise<Response | URL> {
    for (let hops = 0; hops < 10; hops++) {
      const location = res.headers.get('location');
      const page = res.status === 200 ? await res.clone().text() : '';
      // The provider's self-submitting form (ending a previous person's session) is what a browser posts.
      if (page.includes('document.forms[0].submit()')) {
        const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1] ?? '';
        const fields = new URLSearchParams([...page.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m): [string, string] => [m[1], m[2]]));
        res = await this.fetch(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields.toString() });
        continue;
      }
      if (res.status < 300 || res.status >= 400 || !location) return res;
      const next = new URL(location, this.base);
      if (next.origin !== new URL(this.base).origin) return next;
      res = await this.fetch(next.href);
    }
    throw new Error('too many redirects');
  }
}

/** The development provider's sign-in for the console: authorization code + PKCE through its form. */
describe('development identity provider: console sign-in', () => {
  let issuer: string;
  let t: ControlTestApp;

  const stack = suiteStack(() => startDevIdentityStack('dev_identity_sign_in', { consoleRedirectUris: [CONSOLE] }));
  beforeAll(async () => {
    ({ issuer, t } = stack);
  });

  const authorize = (browser: Browser, overrides: Record<string, string | null> = {}) => {
    const verifier = randomBytes(32).toString('base64url');
    const params: Record<string, string | null> = {
      client_id: CONSOLE_CLIENT_ID,
      redirect_uri: CONSOLE,
      response_type: 'code',
      scope: 'openid email offline_access control',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'st4te',
      prompt: 'login',
      ...overrides,
    };
    const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== null));
    return { verifier, res: browser.fetch(`/auth?${query}`) };
  };
  const form = (email: string, secret: string) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, secret }).toString(),
  });
  const token = (body: Record<string, string>) =>
    fetch(`${issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) }).then(
      async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }),
    );

  it('signs a person in with any email and the secret, for a token control trusts and a refresh token', async () => {
    const browser = new Browser(issuer);
    const { verifier, res } = authorize(browser);
    const page = (await browser.follow(await res)) as Response;
    expect(page.status).toBe(200);
    const action = /action="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    expect(action).toMatch(/^\/interaction\//);

    const wrong = await browser.fetch(action, form('dev@example.com', 'not-the-secret'));
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That is not the development secret.');
    expect((await browser.fetch(action, form('no spaces allowed', DEV_IDENTITY_SECRET))).status).toBe(400);

    const back = await browser.follow(await browser.fetch(action, form('dev@example.com', DEV_IDENTITY_SECRET)));
    expect(back).toBeInstanceOf(URL);
    const callback = back as URL;
    expect(`${callback.origin}${callback.pathname}`).toBe(CONSOLE);
    expect(callback.searchParams.get('state')).toBe('st4te');
    const code = callback.searchParams.get('code') ?? '';

    const exchange = { grant_type: 'authorization_code', code, redirect_uri: CONSOLE, client_id: CONSOLE_CLIENT_ID };
    expect((await token({ ...exchange, code_verifier: randomBytes(32).toString('base64url') })).status).toBe(400);
    const tokens = await token({ ...exchange, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.access_token)).toMatchObject({ sub: 'dev@example.com', email: 'dev@example.com', aud: DEV_IDENTITY_AUDIENCE });
    expect(tokens.body.refresh_token).toBeTruthy();

    const http = request(t.app.getHttpServer());
    await http.post('/control/v1/workspaces').set(bearer(tokens.body.access_token)).send({ name: 'Signed in' }).expect(201);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: CONSOLE_CLIENT_ID });
    expect(refreshed.status).toBe(200);
    const list = await http.get('/control/v1/workspaces').set(bearer(refreshed.body.access_token)).expect(200);
    expect(list.body.data.map((w: { name: string }) => w.name)).toEqual(['Signed in']);
  });

  it('signs another person in on the same browser, as whoever they type', async () => {
    const browser = new Browser(issuer);
    for (const email of ['first@example.com', 'second@example.com']) {
      const { verifier, res } = authorize(browser);
      const page = (await browser.follow(await res)) as Response;
      expect(page.status).toBe(200);
      const action = /action="([^"]+)"/.exec(await page.text())?.[1] ?? '';
      const back = await browser.follow(await browser.fetch(action, form(email, DEV_IDENTITY_SECRET)));
      if (!(back instanceof URL)) throw new Error(`no redirect to the console: ${back.status} ${await back.text()}`);
      const code = back.searchParams.get('code') ?? '';
      const tokens = await token({ grant_type: 'authorization_code', code, redirect_uri: CONSOLE, client_id: CONSOLE_CLIENT_ID, code_verifier: verifier });
      expect(decodeJwt(tokens.body.access_token).sub).toBe(email);
    }
  });

  it('requires PKCE and a registered redirect URI', async () => {
    const noPkce = await new Browser(issuer).follow(await authorize(new Browser(issuer), { code_challenge: null, code_challenge_method: null }).res);
    expect(noPkce).toBeInstanceOf(URL);
    expect((noPkce as URL).searchParams.get('error')).toBe('invalid_request');
    const elsewhere = (await new Browser(issuer).follow(await authorize(new Browser(issuer), { redirect_uri: 'http://evil.example/' }).res)) as Response;
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('Sign-in failed');
  });
});
