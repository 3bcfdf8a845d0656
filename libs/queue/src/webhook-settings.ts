import { SecretBox } from '@bursar/crypto';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { CommonSettings, IsAes256Key, ToBool, ToInt } from '@bursar/service-kit';

/**
 * A delivery header prefix (`<brand>-Signature`, `<brand>-Event-Id`, `<brand>-Delivery-Id`): one
 * header-safe word, so a receiver written for another product's header names can keep them.
 */
export const WEBHOOK_BRAND_PATTERN = /^[A-Za-z][A-Za-z0-9]{0,31}$/;

/** Settings the services and the worker share for the webhook queues. */
export class WebhookQueueSettings extends CommonSettings {
  /** BullMQ key prefix; processes that work together must agree on it. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'WEBHOOK_QUEUE_PREFIX must be 1-64 of A-Z a-z 0-9 _ . : -' })
  WEBHOOK_QUEUE_PREFIX = 'bursar';

  /** Accept (and deliver to) loopback, private and link-local addresses: development and tests only. */
  @ToBool()
  @IsBoolean({ message: 'WEBHOOK_ALLOW_PRIVATE_URLS must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_URLS = false;
}

/** What a service (ledger, control) adds to deliver its webhooks. */
export class WebhookServiceSettings extends WebhookQueueSettings {
  /**
   * AES-256 key shared with the webhook worker, sealing signing secrets inside queued jobs (the
   * service's own secret key, which seals them at rest, never leaves the service). While unset the
   * service records events and deliveries but publishes nothing, so no delivery is lost.
   */
  @IsOptional()
  @IsAes256Key()
  WEBHOOK_SECRET_KEY?: string;

  /** The first retry delay; the rest of the schedule keeps its proportions. Production default when unset. */
  @IsOptional()
  @ToInt()
  @IsInt({ message: 'WEBHOOK_RETRY_BASE_MS must be an integer' })
  @Min(1, { message: 'WEBHOOK_RETRY_BASE_MS must be at least 1' })
  @Max(3_600_000, { message: 'WEBHOOK_RETRY_BASE_MS must be at most 3600000' })
  WEBHOOK_RETRY_BASE_MS?: number;

  /** Header prefix of deliveries (an endpoint's own `header_brand` wins), and of the ledger's `<brand>-Inbound-Signature`. */
  @IsString()
  @Matches(WEBHOOK_BRAND_PATTERN, { message: 'WEBHOOK_BRAND must be a header-safe word' })
  WEBHOOK_BRAND = 'Bursar';

  /**
   * A pending delivery whose job has shown no sign of life for this long (its next attempt this
   * late) is published again, so deliveries survive Redis losing its data.
   */
  @ToInt()
  @IsInt({ message: 'WEBHOOK_REPUBLISH_AFTER_MS must be an integer' })
  @Min(100, { message: 'WEBHOOK_REPUBLISH_AFTER_MS must be at least 100' })
  WEBHOOK_REPUBLISH_AFTER_MS = 120_000;

  /** How often an idle relay looks for new events, in milliseconds. */
  @ToInt()
  @IsInt({ message: 'WEBHOOK_RELAY_INTERVAL_MS must be an integer' })
  @Min(5, { message: 'WEBHOOK_RELAY_INTERVAL_MS must be at least 5' })
  WEBHOOK_RELAY_INTERVAL_MS = 25;
}

/** The WebhookDispatcher options every service takes straight from its settings. */
export function dispatcherSettings(settings: WebhookServiceSettings) {
  return {
    transport: settings.WEBHOOK_SECRET_KEY ? SecretBox.fromBase64(settings.WEBHOOK_SECRET_KEY) : null,
    brand: settings.WEBHOOK_BRAND,
    redisUrl: settings.REDIS_URL,
    queuePrefix: settings.WEBHOOK_QUEUE_PREFIX,
    relayIntervalMs: settings.WEBHOOK_RELAY_INTERVAL_MS,
    republishAfterMs: settings.WEBHOOK_REPUBLISH_AFTER_MS,
  };
}
