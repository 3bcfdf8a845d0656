import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { escapeHtml as escape, PERSON } from './dev-identity-provider';

const INTERACTION = /^\/interaction\/([A-Za-z0-9_-]+)$/;

function page(uid: string, email: string, error?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Bursar development sign-in</title>
<style>body{font-family:system-ui,sans-serif;max-width:24rem;margin:3rem auto;padding:0 1rem}label{display:block;margin-top:1rem}input{width:100%;padding:.5rem;box-sizing:border-box}button{margin-top:1.5rem;padding:.5rem 1rem}.error{color:#b00020}</style></head>
<body><h1>Development sign-in</h1><p>Any email; the password is the development secret <code>pnpm start</code> printed.</p>
${error ? `<p class="error" role="alert">${escape(error)}</p>` : ''}
<form method="post" action="/interaction/${uid}">
<label for="email">Email</label><input id="email" name="email" type="text" autocomplete="username" value="${escape(email)}" required autofocus>
<label for="secret">Development secret</label><input id="secret" name="secret" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form></body></html>`;
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 10_000) req.destroy(new Error('form too large'));
    });
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The development provider's HTTP handler: the sign-in form of the authorization-code flow at
 * /interaction/<uid> (any usable name plus the shared development secret), everything else
 * handled by oidc-provider itself.
 */
export function devIdentityHandler(provider: Provider, secret: string): (req: IncomingMessage, res: ServerResponse) => void {
  const oidc = provider.callback();
  const html = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
  };
  const interaction = async (req: IncomingMessage, res: ServerResponse, uid: string) => {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return html(res, 400, 'Sign-in session mismatch; start again from the console.');
    // The console is first-party: whatever it asks for is granted once the person has signed in.
    if (details.prompt.name === 'consent') return consent(req, res, details);
    if (req.method !== 'POST') return html(res, 200, page(uid, ''));
    const form = await readForm(req);
    const email = (form.get('email') ?? '').trim();
    if (!PERSON.test(email)) return html(res, 400, page(uid, email, 'Use an email address or a plain name.'));
    if (!sameSecret(form.get('secret') ?? '', secret)) return html(res, 401, page(uid, email, 'That is not the development secret.'));
    await provider.interactionFinished(req, res, { login: { accountId: email } }, { mergeWithLastSubmission: false });
  };
  const consent = async (req: IncomingMessage, res: ServerResponse, details: Awaited<ReturnType<Provider['interactionDetails']>>) => {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session?.accountId, clientId: String(details.params.client_id) });
    if (!grant) throw new Error('grant not found');
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
    await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  };
  return (req, res) => {
    const match = INTERACTION.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (!match) return void oidc(req, res);
    interaction(req, res, match[1]).catch((err: unknown) =>
      html(res, 400, `Sign-in failed: ${escape(err instanceof Error ? err.message : String(err))}. Start again from the console.`),
    );
  };
}
