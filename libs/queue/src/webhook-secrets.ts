import { SecretBox } from '@bursar/crypto';

/** Seals signing secrets for one delivery's job (see WebhookDeliveryJob.sealedSecrets). */
export function sealWebhookSecrets(box: SecretBox, deliveryId: string, secrets: string[]): string[] {
  return secrets.map((secret) => box.encrypt(secret, deliveryId));
}

export function openWebhookSecrets(box: SecretBox, deliveryId: string, sealed: string[]): string[] {
  return sealed.map((token) => box.decrypt(token, deliveryId));
}
