import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DELIVERY_STATUSES, HEADER_BRAND_DESCRIPTION } from '@bursar/queue';
import { MODES } from '../../common/mode';

/** Wire shape of a webhook endpoint (documentation only; presentWebhookEndpoint builds it). */
export class WebhookEndpointResponse {
  @ApiProperty({ enum: ['webhook_endpoint'] }) object: 'webhook_endpoint';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() url: string;
  @ApiProperty({ type: 'string', nullable: true }) description: string | null;
  @ApiProperty({ enum: MODES }) mode: string;
  @ApiProperty() active: boolean;
  @ApiProperty({ type: [String], description: 'Empty: every event' }) enabled_events: string[];
  @ApiProperty({ type: String, nullable: true, description: HEADER_BRAND_DESCRIPTION }) header_brand: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_delivered_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiPropertyOptional({ description: 'whsec_<mode>_…; only in the create and rotate_secret responses' }) signing_secret?: string;
  @ApiPropertyOptional({ description: 'Reminder that the secret is shown once' }) signing_secret_note?: string;
  @ApiPropertyOptional({ type: 'string', format: 'date-time', description: 'rotate_secret only: when the old secret stops signing' })
  previous_secret_expires_at?: string;
}

/** Wire shape of a webhook delivery (documentation only; presentWebhookDelivery builds it). */
export class WebhookDeliveryResponse {
  @ApiProperty({ enum: ['webhook_delivery'] }) object: 'webhook_delivery';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) webhook_endpoint_id: string;
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty() event_type: string;
  @ApiProperty({ enum: ['event', 'redelivery', 'test_send'] }) enqueue_kind: string;
  @ApiProperty({ description: 'Attempts made so far (0 while the first is pending); five at most' }) attempt: number;
  @ApiProperty({ enum: DELIVERY_STATUSES, description: '`failed`: all five attempts failed (dead)' }) status: string;
  @ApiProperty({ enum: ['POST'] }) request_method: string;
  @ApiProperty() request_url: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'As sent by the last attempt, signature included' })
  request_headers: Record<string, string>;
  @ApiProperty({ description: 'The exact bytes signed and sent' }) request_body: string;
  @ApiProperty({ type: 'integer', nullable: true }) response_status: number | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, nullable: true }) response_headers: Record<string, string> | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'First 4 KiB' }) response_body: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) response_at: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) next_attempt_at: string | null;
  @ApiProperty({ type: 'string', nullable: true }) error_message: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) redelivers_delivery_id: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** `data` of failed_count. */
export class DeliveryCountResponse {
  @ApiProperty({ enum: ['delivery_count'] }) object: 'delivery_count';
  @ApiProperty() count: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'The since filter applied, if any' }) since: string | null;
}
