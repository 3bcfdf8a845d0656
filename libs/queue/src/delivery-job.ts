import type { SecretBox } from '@bursar/crypto';
import type { TraceCarrier } from '@bursar/service-kit';
import type { WebhookDeliveryJob, WebhookService } from './webhook-job';
import { sealWebhookSecrets } from './webhook-secrets';

export interface DeliveryJobInput {
  service: WebhookService;
  /** Header prefix, e.g. `Bursar` for `Bursar-Signature`. */
  brand: string;
  deliveryId: string;
  eventId: string;
  url: string;
  body: string;
  /** Plain signing secrets, current first. */
  secrets: string[];
  /** The schedule's delays between attempts. */
  retryDelaysMs: number[];
  /** Attempts the delivery already made (0 for a new one); the job makes the remaining ones. */
  attemptsMade: number;
  /** Trace context of the request that caused the delivery, when it was traced. */
  traceContext?: TraceCarrier | null;
}

/** The headers a delivery carries besides the signature, as recorded on the delivery row. */
export function deliveryHeaders(brand: string, eventId: string, deliveryId: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': `${brand}-Webhooks/1.0`,
    [`${brand}-Event-Id`]: eventId,
    [`${brand}-Delivery-Id`]: deliveryId,
  };
}

/** A job for one delivery; `transport` seals the secrets with the key shared with the worker. */
export function buildDeliveryJob(input: DeliveryJobInput, transport: SecretBox): WebhookDeliveryJob {
  return {
    service: input.service,
    deliveryId: input.deliveryId,
    url: input.url,
    body: input.body,
    headers: deliveryHeaders(input.brand, input.eventId, input.deliveryId),
    signatureHeader: `${input.brand}-Signature`,
    sealedSecrets: sealWebhookSecrets(transport, input.deliveryId, input.secrets),
    firstAttempt: input.attemptsMade + 1,
    retryDelaysMs: input.retryDelaysMs.slice(input.attemptsMade),
    enqueuedAt: Date.now(),
    traceContext: input.traceContext ?? null,
  };
}
