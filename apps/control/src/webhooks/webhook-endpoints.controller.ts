import { Body, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { presentWebhookDelivery } from '@bursar/queue';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { ListQueryDto, mapPage } from '../common/pagination';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { CreateControlWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { presentControlEndpoint } from './webhook-endpoint.record';
import { WebhookDeliverySchema, WebhookEndpointSchema, WebhookEndpointWithSecretSchema } from './webhook-endpoint.schema';
import { ControlEndpointWithSecret, ControlWebhookEndpointsService } from './webhook-endpoints.service';

function withSecret({ endpoint, secret }: ControlEndpointWithSecret) {
  return { data: { ...presentControlEndpoint(endpoint), secret } };
}

/** Control-layer webhook endpoints of a workspace (reference s.9 and s.12), apart from the ledger's. */
@WorkspaceRoutes('webhook_endpoints')
export class ControlWebhookEndpointsController {
  constructor(private readonly endpoints: ControlWebhookEndpointsService) {}

  @Get()
  @RequireCapability('read')
  @ApiOperation({ summary: "The workspace's endpoints, newest first, never with secrets" })
  @ApiPage(WebhookEndpointSchema)
  async list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ListQueryDto) {
    return mapPage(await this.endpoints.list(workspace.id, query), presentControlEndpoint);
  }

  @Post()
  @RequireCapability('manage_policy')
  @ApiOperation({ summary: 'Register an endpoint; its signing `secret` is returned this once. 422 for a refused URL or an unknown event' })
  @ApiData(WebhookEndpointWithSecretSchema, 201)
  async create(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Body() dto: CreateControlWebhookEndpointDto) {
    return withSecret(await this.endpoints.create(workspace.id, dto));
  }

  @Get(':id')
  @RequireCapability('read')
  @ApiData(WebhookEndpointSchema)
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: presentControlEndpoint(await this.endpoints.get(workspace.id, id)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireCapability('manage_policy')
  async remove(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.endpoints.remove(workspace.id, id);
  }

  @Post(':id/rotate')
  @HttpCode(200)
  @RequireCapability('manage_policy')
  @ApiOperation({ summary: 'New signing secret; for 24 hours deliveries are signed with the new and the previous one' })
  @ApiData(WebhookEndpointWithSecretSchema)
  async rotate(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return withSecret(await this.endpoints.rotate(workspace.id, id, new Date()));
  }

  @Get(':id/deliveries')
  @RequireCapability('read')
  @ApiOperation({
    summary:
      "The endpoint's deliveries, newest first: status (pending, succeeded, failed after eight attempts), attempt count, " +
      'the request as sent and the last response',
  })
  @ApiPage(WebhookDeliverySchema)
  async deliveries(
    @CurrentWorkspace() { workspace }: WorkspaceAccess,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: ListQueryDto,
  ) {
    return mapPage(await this.endpoints.deliveries(workspace.id, id, query), presentWebhookDelivery);
  }
}
