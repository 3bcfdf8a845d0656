import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { presentWebhookDelivery } from '@bursar/queue';
import { RequireScope } from '../auth/require-scope.decorator';
import { ListPage } from '../common/envelope.interceptor';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { OnePageQuery } from '../periods/dto/period-close.dto';
import { parseSince } from '../events/since';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { FailedCountQuery } from './dto/failed-count.query';
import { ListDeliveriesQuery } from './dto/list-deliveries.query';
import { TestSendDto } from './dto/test-send.dto';
import { UpdateWebhookEndpointDto } from './dto/update-webhook-endpoint.dto';
import { DeliveryCountResponse, WebhookDeliveryResponse, WebhookEndpointResponse } from './dto/webhook.responses';
import { presentWebhookEndpoint, SIGNING_SECRET_NOTE } from './webhook-endpoint.record';
import { EndpointWithSecret, WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookDeliveriesService } from './webhook-deliveries.service';

function withSecret({ endpoint, secret }: EndpointWithSecret) {
  return { ...presentWebhookEndpoint(endpoint), signing_secret: secret, signing_secret_note: SIGNING_SECRET_NOTE };
}

@LedgerApiController('webhook_endpoints', 'Webhook endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Get()
  @RequireScope('ledger:read')
  @ApiOperation({ summary: "The ledger's endpoints, oldest first; always one page (has_more false) whatever limit is" })
  @ApiEnveloped(WebhookEndpointResponse, { list: true })
  async list(@CurrentLedger() ledger: LedgerScope, @Query() _query: OnePageQuery) {
    return new ListPage((await this.endpoints.list(ledger)).map(presentWebhookEndpoint));
  }

  @Post()
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({ summary: 'Register an endpoint; the signing secret (whsec_<mode>_…) is returned this once' })
  @ApiEnveloped(WebhookEndpointResponse, { status: 201 })
  async create(@CurrentLedger() ledger: LedgerScope, @Body() body: CreateWebhookEndpointDto) {
    return withSecret(
      await this.endpoints.create(ledger, {
        url: body.url,
        description: body.description,
        enabledEvents: body.enabled_events,
        headerBrand: body.header_brand,
      }),
    );
  }

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiEnveloped(WebhookEndpointResponse)
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return presentWebhookEndpoint(await this.endpoints.get(ledger, id));
  }

  @Patch(':id')
  @RequireScope('ledger:write')
  @ApiOperation({ summary: 'Change url, description, enabled_events, header_brand (null: the deployment WEBHOOK_BRAND) or active' })
  @ApiEnveloped(WebhookEndpointResponse)
  async update(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: UpdateWebhookEndpointDto) {
    const endpoint = await this.endpoints.update(ledger, id, {
      url: body.url,
      description: body.description,
      enabledEvents: body.enabled_events,
      headerBrand: body.header_brand,
      active: body.active,
    });
    return presentWebhookEndpoint(endpoint);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireScope('ledger:write')
  @ApiOperation({ summary: 'Delete the endpoint; its pending deliveries are abandoned' })
  async remove(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string): Promise<void> {
    await this.endpoints.remove(ledger, id);
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary:
      'Mint a new signing secret. For 24 hours deliveries carry a v1 signature for the new and the old secret; ' +
      'rotating again inside that window is 409 rotation_in_progress',
  })
  @ApiEnveloped(WebhookEndpointResponse)
  async rotate(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    const rotated = await this.endpoints.rotateSecret(ledger, id, new Date());
    return { ...withSecret(rotated), previous_secret_expires_at: rotated.endpoint.previousSecretExpiresAt?.toISOString() ?? null };
  }

  @Get(':id/deliveries')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: "The endpoint's deliveries, newest first" })
  @ApiEnveloped(WebhookDeliveryResponse, { list: true })
  listDeliveries(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() query: ListDeliveriesQuery) {
    return this.deliveries.list(ledger, id, query.status, query);
  }

  @Get(':id/deliveries/failed_count')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'How many deliveries exhausted their five attempts (status failed), optionally since a time' })
  @ApiEnveloped(DeliveryCountResponse)
  async failedCount(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() query: FailedCountQuery) {
    const since = parseSince(query.since);
    const count = await this.deliveries.failedCount(ledger, id, since);
    return { object: 'delivery_count' as const, count, since: since?.toISOString() ?? null };
  }

  @Post(':id/test_send')
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({ summary: 'Deliver a synthetic event (not logged) to check the receiver; 409 webhook_endpoint_disabled when inactive' })
  @ApiEnveloped(WebhookDeliveryResponse, { status: 201 })
  async testSend(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: TestSendDto) {
    return presentWebhookDelivery(await this.deliveries.testSend(ledger, id, { eventType: body.event_type, payload: body.payload }));
  }
}
