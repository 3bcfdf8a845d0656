import * as oauth from 'oauth4webapi';
import type { ConsoleConfig } from './config';

/** Tokens live in sessionStorage: gone when the tab closes or the person signs out. */
const TOKENS = 'bursar.console.tokens';
const PENDING = 'bursar.console.pending';
/** Refresh a minute before the access token expires (a fifth of its life for short-lived tokens). */
const refreshMargin = (lifetimeMs: number) => Math.min(60_000, lifetimeMs / 5);

interface Tokens {
  access_token: string;
  refresh_token?: string;
  expires_at: number;
  lifetime_ms: number;
}

export interface Session {
  /** The current access token, refreshed first when it is about to expire. */
  token(): Promise<string>;
  signOut(): void;
  email: string;
}

const redirectUri = () => new URL('./', window.location.href).href.split('?')[0];

export class Auth {
  private timer: number | undefined;
  private refreshing: Promise<Tokens> | undefined;

  private constructor(
    private readonly as: oauth.AuthorizationServer,
    private readonly client: oauth.Client,
    private readonly insecure: boolean,
  ) {}

  static async discover(config: ConsoleConfig): Promise<Auth> {
    const issuer = new URL(config.issuer);
    // The development provider listens on plain http (loopback); production issuers are https.
    const insecure = issuer.protocol === 'http:';
    const res = await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: insecure });
    return new Auth(await oauth.processDiscoveryResponse(issuer, res), { client_id: config.clientId }, insecure);
  }

  /** Sends the browser to the provider's sign-in (authorization code + PKCE). */
  async signIn(): Promise<void> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, back: window.location.hash }));
    if (!this.as.authorization_endpoint) throw new Error('the issuer publishes no authorization endpoint');
    const url = new URL(this.as.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: this.client.client_id,
      redirect_uri: redirectUri(),
      response_type: 'code',
      scope: 'openid email offline_access control',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      prompt: 'login',
    }).toString();
    window.location.assign(url.href);
  }

  /** Completes a sign-in when the provider sent the browser back with a code; then the session, if any. */
  async resume(): Promise<Session | null> {
    const here = new URL(window.location.href);
    const pending = sessionStorage.getItem(PENDING);
    if (pending && (here.searchParams.has('code') || here.searchParams.has('error'))) {
      sessionStorage.removeItem(PENDING);
      const { verifier, state, back } = JSON.parse(pending) as { verifier: string; state: string; back: string };
      const params = oauth.validateAuthResponse(this.as, this.client, here, state);
      const res = await oauth.authorizationCodeGrantRequest(this.as, this.client, oauth.None(), params, redirectUri(), verifier, {
        [oauth.allowInsecureRequests]: this.insecure,
      });
      this.store(await oauth.processAuthorizationCodeResponse(this.as, this.client, res, { requireIdToken: false }));
      window.history.replaceState(null, '', `${redirectUri()}${back || '#/approvals'}`);
    }
    const tokens = this.load();
    if (!tokens) return null;
    this.schedule(tokens);
    return { token: () => this.token(), signOut: () => this.signOut(), email: emailOf(tokens.access_token) };
  }

  private async token(): Promise<string> {
    const tokens = this.load();
    if (!tokens) throw new Error('signed out');
    if (tokens.expires_at - Date.now() > refreshMargin(tokens.lifetime_ms)) return tokens.access_token;
    return (await this.refresh()).access_token;
  }

  private refresh(): Promise<Tokens> {
    this.refreshing ??= (async () => {
      const tokens = this.load();
      if (!tokens?.refresh_token) throw new Error('session expired; sign in again');
      const res = await oauth.refreshTokenGrantRequest(this.as, this.client, oauth.None(), tokens.refresh_token, {
        [oauth.allowInsecureRequests]: this.insecure,
      });
      const fresh = this.store(await oauth.processRefreshTokenResponse(this.as, this.client, res), tokens.refresh_token);
      this.schedule(fresh);
      return fresh;
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private schedule(tokens: Tokens) {
    window.clearTimeout(this.timer);
    const wait = Math.max(0, tokens.expires_at - Date.now() - refreshMargin(tokens.lifetime_ms));
    this.timer = window.setTimeout(() => void this.refresh().catch(() => this.signOut()), wait);
  }

  private signOut() {
    window.clearTimeout(this.timer);
    sessionStorage.removeItem(TOKENS);
    window.location.assign(redirectUri());
  }

  private store(res: oauth.TokenEndpointResponse, previousRefresh?: string): Tokens {
    const lifetime = (res.expires_in ?? 300) * 1000;
    const tokens: Tokens = {
      access_token: res.access_token,
      refresh_token: res.refresh_token ?? previousRefresh,
      expires_at: Date.now() + lifetime,
      lifetime_ms: lifetime,
    };
    sessionStorage.setItem(TOKENS, JSON.stringify(tokens));
    return tokens;
  }

  private load(): Tokens | null {
    const raw = sessionStorage.getItem(TOKENS);
    return raw ? (JSON.parse(raw) as Tokens) : null;
  }
}

/** The signed-in person's name for the header (display only; control checks the token itself). */
function emailOf(jwt: string): string {
  try {
    const claims = JSON.parse(atob(jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { email?: string; sub?: string };
    return claims.email ?? claims.sub ?? '';
  } catch {
    return '';
  }
}
