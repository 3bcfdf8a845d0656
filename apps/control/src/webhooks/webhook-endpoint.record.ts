/** A control webhook endpoint row; the secrets stay sealed. */
export interface ControlWebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  enabledEvents: string[];
  active: boolean;
  /** Own delivery header prefix; null: the deployment's WEBHOOK_BRAND. */
  headerBrand: string | null;
  previousSecretExpiresAt: Date | null;
  lastDeliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const ENDPOINT_STATUSES = ['active', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export const CONTROL_ENDPOINT_COLUMNS = `id, url, description, enabled_events AS "enabledEvents", active, header_brand AS "headerBrand",
  previous_secret_expires_at AS "previousSecretExpiresAt", last_delivered_at AS "lastDeliveredAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The endpoint as control's clients read it; `secret` is added on create and rotate only. */
export function presentControlEndpoint(e: ControlWebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    status: (e.active ? 'active' : 'disabled') as EndpointStatus,
    enabled_events: e.enabledEvents,
    header_brand: e.headerBrand,
    last_delivered_at: e.lastDeliveredAt?.toISOString() ?? null,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}
