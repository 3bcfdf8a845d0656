import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { RawBodyRequest } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiData } from '../common/openapi-responses';
import { TraceId } from '../common/trace-id.decorator';
import { ControlSettings } from '../config/control.settings';
import { BillingEventSchema, WebhookReceiptSchema } from './billing.schema';
import { BillingWebhooksService } from './billing-webhooks.service';

/** The billing provider's event deliveries; the HMAC signature is the only credential. */
@ApiTags('billing')
@Controller('control/v1/billing/webhooks')
export class BillingWebhooksController {
  constructor(
    private readonly webhooks: BillingWebhooksService,
    private readonly settings: ControlSettings,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Receive a billing provider event (no identity token)',
    description:
      'Verified by HMAC-SHA256 over the exact raw body: header (BILLING_SIGNATURE_HEADER, default Stripe-Signature) ' +
      '`t=<unix seconds>,v1=<hex HMAC of "<t>.<raw body>" keyed by BILLING_WEBHOOK_SECRET>`, at most 300 s old. ' +
      'Idempotent on the event id: a redelivery answers 200 with duplicate true and changes nothing.',
  })
  @ApiHeader({ name: 'Stripe-Signature', required: true, description: 't=<unix>,v1=<hex>[,v1=...]' })
  @ApiBody({ type: BillingEventSchema })
  @ApiData(WebhookReceiptSchema)
  @ApiResponse({ status: 401, description: 'invalid_signature: missing, malformed, wrong or stale signature' })
  @ApiResponse({ status: 400, description: 'Signed, but not an event {id, type, data: {object}}' })
  async receive(@Req() req: RawBodyRequest<Request>, @TraceId() traceId: string) {
    const header = req.header(this.settings.BILLING_SIGNATURE_HEADER);
    return { data: await this.webhooks.receive(req.rawBody, header, traceId) };
  }
}
