import type { Mode } from '../common/mode';

/** A ledger webhook endpoint row; the secrets stay sealed. */
export interface WebhookEndpointRecord {
  id: string;
  mode: Mode;
  url: string;
  description: string | null;
  enabledEvents: string[];
  active: boolean;
  /** Own delivery header prefix; null: the deployment's WEBHOOK_BRAND. */
  headerBrand: string | null;
  secretSealed: string;
  previousSecretExpiresAt: Date | null;
  lastDeliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const ENDPOINT_COLUMNS = `id, mode, url, description, enabled_events AS "enabledEvents", active, header_brand AS "headerBrand", secret_sealed AS "secretSealed",
  previous_secret_expires_at AS "previousSecretExpiresAt", last_delivered_at AS "lastDeliveredAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export const SIGNING_SECRET_NOTE = 'Store this signing secret now: it is shown only on creation and on rotation.';

/** WebhookEndpoint of reference s.11 (secret fields are added on create and rotate only). */
export function presentWebhookEndpoint(endpoint: WebhookEndpointRecord) {
  return {
    object: 'webhook_endpoint' as const,
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    mode: endpoint.mode,
    active: endpoint.active,
    enabled_events: endpoint.enabledEvents,
    header_brand: endpoint.headerBrand,
    last_delivered_at: endpoint.lastDeliveredAt?.toISOString() ?? null,
    created_at: endpoint.createdAt.toISOString(),
  };
}
