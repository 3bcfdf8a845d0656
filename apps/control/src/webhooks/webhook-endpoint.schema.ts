import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_STATUSES, HEADER_BRAND_DESCRIPTION } from '@bursar/queue';
import { ENDPOINT_STATUSES } from './webhook-endpoint.record';
import { CONTROL_WEBHOOK_EVENTS } from './webhook-event-types';

/** WebhookEndpoint of reference s.7; reads never carry the secret. */
export class WebhookEndpointSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uri' }) url: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ enum: ENDPOINT_STATUSES }) status: string;
  @ApiProperty({ enum: CONTROL_WEBHOOK_EVENTS, isArray: true, description: 'Empty: every event' }) enabled_events: string[];
  @ApiProperty({ type: String, nullable: true, description: HEADER_BRAND_DESCRIPTION }) header_brand: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_delivered_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** The create and rotate answers: the endpoint plus its signing secret, shown this once. */
export class WebhookEndpointWithSecretSchema extends WebhookEndpointSchema {
  @ApiProperty({ example: 'whsec_...', description: 'Signs deliveries: <Brand>-Signature: t=<unix>,v1=<hex HMAC-SHA256>' })
  secret: string;
}

/** One delivery of an event to an endpoint, with the request as sent and the last response. */
export class WebhookDeliverySchema {
  @ApiProperty({ enum: ['webhook_delivery'] }) object: string;
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) webhook_endpoint_id: string;
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty({ enum: CONTROL_WEBHOOK_EVENTS }) event_type: string;
  @ApiProperty({ enum: ['event', 'redelivery', 'test_send'] }) enqueue_kind: string;
  @ApiProperty({ type: 'integer', description: 'Attempts made so far' }) attempt: number;
  @ApiProperty({ enum: DELIVERY_STATUSES, description: 'failed: all eight attempts failed' }) status: string;
  @ApiProperty({ enum: ['POST'] }) request_method: string;
  @ApiProperty() request_url: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) request_headers: Record<string, string>;
  @ApiProperty() request_body: string;
  @ApiProperty({ type: 'integer', nullable: true }) response_status: number | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, nullable: true }) response_headers: Record<string, string> | null;
  @ApiProperty({ type: String, nullable: true }) response_body: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) response_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_attempt_at: string | null;
  @ApiProperty({ type: String, nullable: true }) error_message: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) redelivers_delivery_id: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
