import { Injectable } from '@nestjs/common';
import { ControlSettings } from '../config/control.settings';
import { signEs256, verifyEs256 } from '@bursar/crypto';
import type { IntentFrame } from '../decisions/decision-inputs';
import { CosignKeysService } from './cosign-keys.service';
import { CosignaturesRepository, SpendableIntent } from './cosignatures.repository';

/** Lifetime of a cosignature, as the reference issues them. */
export const COSIGN_TTL_SECONDS = 300;

export const INVALID_REASONS = [
  'malformed',
  'unknown_key',
  'expired',
  'wrong_issuer',
  'not_yet_valid',
  'bad_signature',
  'unknown_intent',
  'already_settled',
  'amount_mismatch',
] as const;
export type InvalidReason = (typeof INVALID_REASONS)[number];

/** What a cosignature asserts, besides the registered claims. */
// A type alias (not an interface) so it fits jose's payload type.
export type CosignSubject = IntentFrame & {
  intent_id: string;
  policy_version: string;
  frame_hash: string;
};

export interface ValidCosignature {
  valid: true;
  reason: null;
  intent_id: string;
  agent_id: string;
  action_type: string;
  resource: string | null;
  amount_cents: number;
  currency: string;
  policy_version: string | null;
  frame_hash: string | null;
  expires_at: string;
}
export interface InvalidCosignature {
  valid: false;
  reason: InvalidReason;
  /** Set when the authority was already spent: the answer then also carries the code `already_consumed`. */
  consumed?: true;
}
export type CosignatureCheck = ValidCosignature | InvalidCosignature;

type Claims = CosignSubject & { iss: string; sub: string; jti: string; iat: number; nbf: number; exp: number };

const invalid = (reason: InvalidReason): InvalidCosignature => ({ valid: false, reason });

/** Tokens kept with their checked signature; the oldest leaves first once full. */
const VERIFIED_TOKENS = 10_000;
const SPENDABLE = new Set(['pending', 'held']);

function wellFormed(claims: Record<string, unknown>): claims is Claims {
  const str = (k: string) => typeof claims[k] === 'string';
  const int = (k: string) => Number.isSafeInteger(claims[k]);
  return (
    ['iss', 'sub', 'jti', 'workspace_id', 'intent_id', 'action_type', 'currency'].every(str) &&
    ['iat', 'nbf', 'exp', 'amount_cents'].every(int) &&
    (claims.resource === null || str('resource'))
  );
}

function settlement(intent: SpendableIntent | null, amount: number): InvalidCosignature | null {
  if (!intent) return invalid('unknown_intent');
  if (intent.consumed) return { ...invalid('already_settled'), consumed: true };
  if (!SPENDABLE.has(intent.state)) return invalid('already_settled');
  if (intent.amount_cents !== amount) return invalid('amount_mismatch');
  return null;
}

/**
 * Issues and checks cosignatures: compact ES256 JWS with `kid`, the reference's claims plus
 * `policy_version` and `frame_hash`. Checks are stateful: a token is valid only while its intent is
 * spendable and unspent, and consume spends it exactly once.
 */
@Injectable()
export class CosignService {
  /**
   * Tokens whose signature checked out, by their exact text, with the claims and key id: an
   * executor verifies and then consumes the same token, and the same bytes always check the same
   * way, so the signature is checked once while its key is still published. Time, issuer and
   * spend state are checked on every call.
   */
  private readonly verified = new Map<string, { kid: string; claims: Claims }>();

  constructor(
    private readonly keys: CosignKeysService,
    private readonly intents: CosignaturesRepository,
    private readonly settings: ControlSettings,
  ) {}

  get enabled(): boolean {
    return this.keys.enabled;
  }

  /** Null when cosigning is not configured: the response then leaves `cosignature` out. */
  async sign(subject: CosignSubject, claims: Partial<Claims> = {}): Promise<{ token: string; expires_at: Date } | null> {
    const signing = this.enabled ? await this.keys.signingKey() : null;
    if (!signing) return null;
    const now = Math.floor(Date.now() / 1000);
    const payload: Claims = {
      iss: this.settings.COSIGN_ISSUER as string,
      sub: subject.agent_id,
      jti: subject.intent_id,
      iat: now,
      nbf: now,
      exp: now + COSIGN_TTL_SECONDS,
      ...subject,
      ...claims,
    };
    const token = await signEs256({ kid: signing.kid, typ: 'JWT' }, payload, signing.key);
    return { token, expires_at: new Date(payload.exp * 1000) };
  }

  async verify(token: string): Promise<CosignatureCheck> {
    const checked = await this.checkToken(token);
    if ('reason' in checked) return checked;
    return settlement(await this.intents.find(checked.workspace_id, checked.intent_id), checked.amount_cents) ?? this.present(checked);
  }

  async consume(token: string, consumedBy: string | null): Promise<CosignatureCheck> {
    const checked = await this.checkToken(token);
    if ('reason' in checked) return checked;
    if (await this.intents.consume(checked.workspace_id, checked.intent_id, checked.amount_cents, consumedBy)) return this.present(checked);
    // Lost the race or never spendable: read once to say which.
    return settlement(await this.intents.find(checked.workspace_id, checked.intent_id), checked.amount_cents) ?? invalid('already_settled');
  }

  /** Signature, issuer and time checks; no database read. */
  private async checkToken(token: string): Promise<Claims | InvalidCosignature> {
    const claims = await this.signedClaims(token);
    if ('reason' in claims) return claims;
    if (claims.iss !== this.settings.COSIGN_ISSUER) return invalid('wrong_issuer');
    const now = Math.floor(Date.now() / 1000);
    if (claims.nbf > now) return invalid('not_yet_valid');
    if (claims.exp <= now) return invalid('expired');
    return claims;
  }

  private async signedClaims(token: string): Promise<Claims | InvalidCosignature> {
    const hit = this.verified.get(token);
    if (hit && (await this.keys.verifyingKey(hit.kid))) return hit.claims;
    const checked = await verifyEs256(token, (kid) => this.keys.verifyingKey(kid));
    if (typeof checked === 'string') return invalid(checked);
    const claims = checked.payload as Record<string, unknown> | null;
    if (typeof claims !== 'object' || claims === null || !wellFormed(claims)) return invalid('malformed');
    if (this.verified.size >= VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { kid: checked.header.kid as string, claims });
    return claims;
  }

  private present(claims: Claims): ValidCosignature {
    return {
      valid: true,
      reason: null,
      intent_id: claims.intent_id,
      agent_id: claims.sub,
      action_type: claims.action_type,
      resource: claims.resource,
      amount_cents: claims.amount_cents,
      currency: claims.currency,
      policy_version: typeof claims.policy_version === 'string' ? claims.policy_version : null,
      frame_hash: typeof claims.frame_hash === 'string' ? claims.frame_hash : null,
      expires_at: new Date(claims.exp * 1000).toISOString(),
    };
  }
}
