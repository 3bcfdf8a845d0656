import { randomToken, SecretBox } from '@bursar/crypto';
import type { SealedColumn } from '@bursar/service-kit';

/** How long a rotated-out secret keeps signing deliveries beside the new one (decisions.md). */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

/** Signing secrets at rest: sealed with the service's own key, bound to their endpoint's id. */
const endpointAad = (endpointId: string) => `webhook_endpoint:${endpointId}`;

export function sealEndpointSecret(box: SecretBox, endpointId: string, secret: string): string {
  return box.encrypt(secret, endpointAad(endpointId));
}

export function openEndpointSecret(box: SecretBox, endpointId: string, sealed: string): string {
  return box.decrypt(sealed, endpointAad(endpointId));
}

/** The sealed columns of a service's webhook_endpoints table, for `rotate-secret-key`. */
export const ENDPOINT_SEALED_COLUMNS: SealedColumn[] = ['secret_sealed', 'previous_secret_sealed'].map((column) => ({
  table: 'webhook_endpoints',
  column,
  key: ['id'],
  aad: (row) => endpointAad(row.id),
}));

/** A new signing secret, `<prefix><random>` (e.g. `whsec_test_…`). */
export function newSigningSecret(prefix: string): string {
  return `${prefix}${randomToken(32)}`;
}

/** The secrets a delivery is signed with now: the current one, and the previous one inside its overlap. */
export function signingSecrets(
  box: SecretBox,
  endpoint: { endpointId: string; secretSealed: string; previousSecretSealed: string | null; previousSecretExpiresAt: Date | null },
  now = new Date(),
): string[] {
  const secrets = [openEndpointSecret(box, endpoint.endpointId, endpoint.secretSealed)];
  if (endpoint.previousSecretSealed && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(openEndpointSecret(box, endpoint.endpointId, endpoint.previousSecretSealed));
  }
  return secrets;
}
