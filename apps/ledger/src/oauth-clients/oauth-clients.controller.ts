import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireScope, Tenant } from '../auth/require-scope.decorator';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { ListPage } from '../common/envelope.interceptor';
import { TenantScope } from '../common/mode';
import { CONDITIONAL_UPDATE, Preconditions, RequestPreconditions, withValidators } from '../common/preconditions';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { OrganizationsService } from '../organizations/organizations.service';
import { CreateOauthClientDto } from './dto/create-oauth-client.dto';
import { ListOauthClientsQuery } from './dto/list-oauth-clients.query';
import { RotateSecretQuery } from './dto/rotate-secret.query';
import { UpdateOauthClientDto } from './dto/update-oauth-client.dto';
import { CLIENT_SECRET_NOTE, oauthClientValidators, presentOauthClient } from './oauth-client.presenter';
import { ClientWithSecret, OauthClientsService } from './oauth-clients.service';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { DeletedOauthClientResponse, OauthClientResponse } from './dto/oauth-client.response';

function withSecret({ client, secret }: ClientWithSecret) {
  return { ...presentOauthClient(client), client_secret: secret, client_secret_note: CLIENT_SECRET_NOTE };
}

@LedgerApiController('oauth_clients', 'OAuth clients')
export class OauthClientsController {
  constructor(
    private readonly clients: OauthClientsService,
    private readonly organizations: OrganizationsService,
  ) {}

  @Get()
  @RequireScope('ledger:clients:read')
  @ApiEnveloped(OauthClientResponse, { list: true })
  @ApiOperation({ summary: "List the organization's clients of the token's mode (one page, never secrets)" })
  async list(@Tenant() tenant: TenantScope, @Query() query: ListOauthClientsQuery) {
    // The other mode's clients are invisible, so asking for them finds none.
    if (query.mode && query.mode !== tenant.mode) return ListPage.empty(query);
    return this.clients.list(tenant, query, presentOauthClient);
  }

  @Post()
  @RequireScope('ledger:clients:write')
  @Idempotent()
  @ApiEnveloped(OauthClientResponse, { status: 201, description: 'The client with client_secret, shown once' })
  @ApiOperation({
    summary: 'Create a client; the secret is returned this once',
    description: 'Live-mode clients need a paid plan (402 plan_required on free; the operator can still create them).',
  })
  async create(@Tenant() tenant: TenantScope, @Body() body: CreateOauthClientDto) {
    if (body.mode !== tenant.mode) {
      throw LedgerErrors.error('forbidden', { message: `A ${tenant.mode}-mode token cannot create ${body.mode} clients`, param: 'mode' });
    }
    if (body.mode === 'live') await this.organizations.requireFeature(tenant.organizationId, 'selfServiceLiveClients', 'creating live-mode clients');
    return withSecret(await this.clients.create(tenant, { name: body.name, ledgerId: body.ledger_id, scopes: body.scopes }));
  }

  @Get(':id')
  @RequireScope('ledger:clients:read')
  @ApiEnveloped(OauthClientResponse, { description: 'The client (never its secret), with ETag and Last-Modified' })
  async get(@Tenant() tenant: TenantScope, @Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const client = await this.clients.get(tenant, id);
    return withValidators(res, oauthClientValidators(client), presentOauthClient(client));
  }

  @Patch(':id')
  @RequireScope('ledger:clients:write')
  @ApiEnveloped(OauthClientResponse)
  @ApiOperation({
    summary: 'Rename a client (scopes, mode and ledger are fixed)',
    description: CONDITIONAL_UPDATE,
  })
  async update(
    @Tenant() tenant: TenantScope,
    @Param('id') id: string,
    @Body() body: UpdateOauthClientDto,
    @RequestPreconditions() pre: Preconditions,
    @Res({ passthrough: true }) res: Response,
  ) {
    const client = await this.clients.rename(tenant, id, body.name, pre);
    return withValidators(res, oauthClientValidators(client), presentOauthClient(client));
  }

  @Delete(':id')
  @RequireScope('ledger:clients:write')
  @ApiEnveloped(DeletedOauthClientResponse)
  @ApiOperation({ summary: 'Disable a client: no new tokens; issued tokens live until they expire' })
  async remove(@Tenant() tenant: TenantScope, @Param('id') id: string) {
    const client = await this.clients.disable(tenant, id, new Date());
    return { object: 'oauth_client' as const, id: client.id, deleted: true };
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @RequireScope('ledger:clients:write')
  @Idempotent()
  @ApiEnveloped(OauthClientResponse, { description: 'The client with its new client_secret and previous_secret_expires_at' })
  @ApiOperation({
    summary: 'Mint a new secret; the old one works 24 hours more (409 rotation_in_progress inside that window)',
  })
  async rotate(@Tenant() tenant: TenantScope, @Param('id') id: string, @Query() query: RotateSecretQuery) {
    const rotated = await this.clients.rotateSecret(tenant, id, query.force === 'true', new Date());
    return {
      ...withSecret(rotated),
      previous_secret_expires_at: rotated.client.previousSecretExpiresAt?.toISOString() ?? null,
    };
  }
}
