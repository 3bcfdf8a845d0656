import { Get, Param, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { presentWebhookDelivery } from '@bursar/queue';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { WebhookDeliveryResponse } from './dto/webhook.responses';
import { WebhookDeliveriesService } from './webhook-deliveries.service';

@LedgerApiController('webhook_deliveries', 'Webhook endpoints')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiEnveloped(WebhookDeliveryResponse)
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return presentWebhookDelivery(await this.deliveries.get(ledger, id));
  }

  @Post(':id/redeliver')
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary: 'Send the same event again as a new delivery (a fresh five attempts); 409 webhook_endpoint_disabled when inactive',
  })
  @ApiEnveloped(WebhookDeliveryResponse, { status: 201 })
  async redeliver(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return presentWebhookDelivery(await this.deliveries.redeliver(ledger, id));
  }
}
