/** A webhook delivery row, in either service (the layout is shared). */
export interface WebhookDeliveryRecord {
  id: string;
  webhookEndpointId: string;
  eventId: string;
  eventType: string;
  enqueueKind: 'event' | 'redelivery' | 'test_send';
  attempt: number;
  status: 'pending' | 'succeeded' | 'dead';
  requestUrl: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  responseAt: Date | null;
  nextAttemptAt: Date | null;
  errorMessage: string | null;
  redeliversDeliveryId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const DELIVERY_COLUMNS = `id, webhook_endpoint_id AS "webhookEndpointId", event_id AS "eventId", event_type AS "eventType",
  enqueue_kind AS "enqueueKind", attempt, status, request_url AS "requestUrl", request_headers AS "requestHeaders",
  request_body AS "requestBody", response_status AS "responseStatus", response_headers AS "responseHeaders",
  response_body AS "responseBody", response_at AS "responseAt", next_attempt_at AS "nextAttemptAt",
  error_message AS "errorMessage", redelivers_delivery_id AS "redeliversDeliveryId", created_at AS "createdAt",
  updated_at AS "updatedAt"`;

/** Delivery statuses on the wire; `dead` (retries exhausted) is shown as `failed`. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** WebhookDelivery of the ledger reference (s.11); control serves the same shape. */
export function presentWebhookDelivery(d: WebhookDeliveryRecord) {
  return {
    object: 'webhook_delivery' as const,
    id: d.id,
    webhook_endpoint_id: d.webhookEndpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    enqueue_kind: d.enqueueKind,
    attempt: d.attempt,
    status: (d.status === 'dead' ? 'failed' : d.status) as DeliveryStatus,
    request_method: 'POST' as const,
    request_url: d.requestUrl,
    request_headers: d.requestHeaders,
    request_body: d.requestBody,
    response_status: d.responseStatus,
    response_headers: d.responseHeaders,
    response_body: d.responseBody,
    response_at: iso(d.responseAt),
    next_attempt_at: iso(d.nextAttemptAt),
    error_message: d.errorMessage,
    redelivers_delivery_id: d.redeliversDeliveryId,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
