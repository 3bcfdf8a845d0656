import { OauthErrors } from './oauth-errors';

/** A token request's fields, read from the form body and the Authorization header. */
export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  grantType: string | undefined;
  scope: string | undefined;
  /** Parameters of other grants, which a client_credentials request must not carry. */
  foreignParameters: string[];
}

const OTHER_GRANTS_PARAMETERS = ['code', 'redirect_uri', 'code_verifier', 'refresh_token', 'username', 'password', 'assertion'];

/** On 401 the RFC asks for a challenge naming the scheme a client should authenticate with. */
const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="bursar-ledger", charset="UTF-8"' };

export function invalidClient(message: string) {
  return OauthErrors.error('invalid_client', { message, headers: BASIC_CHALLENGE });
}

/** RFC 6749 §5.1 of the body: each parameter at most once. */
function field(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw OauthErrors.error('invalid_request', { message: `${name} must be sent once, as a string` });
  }
  return value;
}

/** RFC 6749 §2.3.1: the Basic user and password are form-urlencoded before base64. */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw invalidClient('The Basic credentials are not validly encoded');
  }
}

function basicCredentials(authorization: string): { id: string; secret: string } {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(authorization);
  const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 1) throw invalidClient('The Authorization header must be Basic client_id:client_secret');
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

export function readTokenRequest(body: Record<string, unknown> | undefined, authorization: string | undefined): TokenRequest {
  const form = body ?? {};
  const bodyId = field(form, 'client_id');
  const bodySecret = field(form, 'client_secret');
  const common = {
    grantType: field(form, 'grant_type'),
    scope: field(form, 'scope'),
    foreignParameters: OTHER_GRANTS_PARAMETERS.filter((name) => form[name] !== undefined),
  };
  if (authorization) {
    const basic = basicCredentials(authorization);
    // A client uses one authentication method per request (RFC 6749 §2.3).
    if (bodySecret !== undefined || (bodyId !== undefined && bodyId !== basic.id)) {
      throw OauthErrors.error('invalid_request', {
        message: 'Send the client credentials either as HTTP Basic or as form fields, not both',
      });
    }
    return { clientId: basic.id, clientSecret: basic.secret, ...common };
  }
  if (!bodyId || bodySecret === undefined) {
    throw invalidClient('Client credentials are missing: use HTTP Basic or client_id and client_secret form fields');
  }
  return { clientId: bodyId, clientSecret: bodySecret, ...common };
}
