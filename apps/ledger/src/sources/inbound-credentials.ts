import { SecretBox } from '@bursar/crypto';

/**
 * A source's push token and signing secret at rest: both sealed with the ledger's key and bound to
 * the source id, so a sealed value copied onto another source does not open.
 */
export const inboundTokenAad = (sourceId: string) => `inbound_token:${sourceId}`;
export const inboundSecretAad = (sourceId: string) => `inbound_secret:${sourceId}`;

export function sealInboundToken(box: SecretBox, sourceId: string, token: string): string {
  return box.encrypt(token, inboundTokenAad(sourceId));
}

export function openInboundToken(box: SecretBox, sourceId: string, sealed: string): string {
  return box.decrypt(sealed, inboundTokenAad(sourceId));
}

export function sealInboundSecret(box: SecretBox, sourceId: string, secret: string): string {
  return box.encrypt(secret, inboundSecretAad(sourceId));
}

export function openInboundSecret(box: SecretBox, sourceId: string, sealed: string): string {
  return box.decrypt(sealed, inboundSecretAad(sourceId));
}

/** Path of the push route; the token travels in it. */
export function inboundPath(token: string): string {
  return `/ledger/v1/inbound/sources/${token}`;
}
