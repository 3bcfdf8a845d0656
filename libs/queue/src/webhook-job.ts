/**
 * The contract between a service (ledger, control) and the webhook worker. A job carries
 * everything one delivery needs, so the worker never reads a service's database; the worker
 * reports every attempt back on the service's results queue and the service records it.
 */

/** The services that own webhook deliveries; each consumes its own results queue. */
export type WebhookService = 'ledger' | 'control';

export interface WebhookDeliveryJob {
  service: WebhookService;
  deliveryId: string;
  url: string;
  /** The exact bytes to POST and sign. */
  body: string;
  /** Headers added as they are (content type, event and delivery ids). */
  headers: Record<string, string>;
  /** Name of the signature header, e.g. `Bursar-Signature`. */
  signatureHeader: string;
  /**
   * Signing secrets (current first, then one still inside its rotation overlap), each sealed with
   * the shared WEBHOOK_SECRET_KEY and the delivery id as associated data: Redis never holds them
   * in clear, and a sealed secret cannot be moved to another delivery.
   */
  sealedSecrets: string[];
  /**
   * Number of this job's first attempt: 1, or more when a job lost from Redis is published again
   * for a delivery that already made attempts.
   */
  firstAttempt: number;
  /** Delays before this job's retries, in order; its length + 1 is the number of attempts it makes. */
  retryDelaysMs: number[];
  /** When the service enqueued the job (epoch ms), for event-to-receipt latency. */
  enqueuedAt: number;
  /**
   * W3C trace context of the request that caused the delivery, which the worker's delivery span
   * continues; null (or absent, from a service predating it) when that request was not traced.
   */
  traceContext?: Record<string, string> | null;
}

export type AttemptOutcome = 'succeeded' | 'failed';

/** What the worker reports after each attempt. */
export interface WebhookAttemptResult {
  deliveryId: string;
  /** Unique per execution, so a re-reported result is recorded once. */
  attemptId: string;
  /** 1-based; a run cut short by a killed worker may repeat a number. */
  attempt: number;
  outcome: AttemptOutcome;
  /** No attempt follows: success, or the last allowed attempt failed. */
  final: boolean;
  /** When the next attempt is due (epoch ms); null when final. */
  nextAttemptAt: number | null;
  requestHeaders: Record<string, string>;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  /** Truncated to a few kilobytes. */
  responseBody: string | null;
  error: string | null;
  startedAt: number;
  durationMs: number;
}
