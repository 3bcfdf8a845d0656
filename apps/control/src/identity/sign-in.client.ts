import { Injectable } from '@nestjs/common';
import { ApiError } from '@bursar/errors';
import { ControlSettings } from '../config/control.settings';
import { IdentityErrors } from './identity.errors';

export interface SignedIn {
  access_token: string;
  refresh_token: string | null;
  user: object | null;
}

interface Upstream {
  code?: unknown;
  access_token?: unknown;
  refresh_token?: unknown;
  user?: unknown;
  pending_authentication_token?: unknown;
  authentication_challenge_id?: unknown;
  authentication_challenge?: { id?: unknown };
}

const TIMEOUT_MS = 10_000;
const MFA_CODES = ['mfa_required', 'mfa_challenge', 'mfa_enrollment'];

/**
 * Adapter to the identity provider's password sign-in API. Only the provider knows passwords and
 * second factors; this relays a grant and maps its answer onto the contract's codes.
 */
@Injectable()
export class SignInClient {
  constructor(private readonly settings: ControlSettings) {}

  /** One authenticate call with `grant_type` and its fields. */
  async authenticate(grant: Record<string, string>): Promise<SignedIn> {
    const base = this.settings.IDENTITY_SIGNIN_URL;
    if (!base) throw IdentityErrors.error('identity_not_configured');
    const res = await fetch(`${base.replace(/\/$/, '')}/user_management/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ client_id: this.settings.IDENTITY_SIGNIN_CLIENT_ID, client_secret: this.settings.IDENTITY_SIGNIN_API_KEY, ...grant }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }).catch(() => undefined);
    if (!res || res.status >= 500) throw IdentityErrors.error('identity_unavailable');
    const body = (await res.json().catch(() => ({}))) as Upstream;
    if (res.ok && typeof body.access_token === 'string') {
      return {
        access_token: body.access_token,
        refresh_token: typeof body.refresh_token === 'string' ? body.refresh_token : null,
        user: typeof body.user === 'object' && body.user !== null ? body.user : null,
      };
    }
    if (res.ok) throw IdentityErrors.error('identity_unavailable', { message: 'The identity provider answered without a token' });
    throw refusal(body);
  }
}

function refusal(body: Upstream): ApiError {
  const pending = typeof body.pending_authentication_token === 'string' ? body.pending_authentication_token : null;
  if (typeof body.code === 'string' && MFA_CODES.includes(body.code) && pending) {
    const challenge = body.authentication_challenge_id ?? body.authentication_challenge?.id ?? null;
    return IdentityErrors.error('mfa_required', {
      fields: { pending_authentication_token: pending, authentication_challenge_id: typeof challenge === 'string' ? challenge : null },
    });
  }
  if (body.code === 'email_verification_required' && pending) {
    return IdentityErrors.error('email_verification_required', { fields: { pending_authentication_token: pending } });
  }
  return new ApiError(401, null, 'Sign-in failed: wrong email, password or code, or an expired step', {
    hint: 'Check the email and password, or start sign-in again if the code or pending token expired',
  });
}
