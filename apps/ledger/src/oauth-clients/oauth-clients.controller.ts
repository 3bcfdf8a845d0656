import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { RequireScope, Tenant } from '../auth/require-scope.decorator';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { ListPage } from '../common/envelope.interceptor';
import { TenantScope } from '../common/mode';
import { CreateOauthClientDto } from './dto/create-oauth-client.dto';
import { ListOauthClientsQuery } from './dto/list-oauth-clients.query';
import { RotateSecretQuery } from './dto/rotate-secret.query';
import { CLIENT_SECRET_NOTE, presentOauthClient } from './oauth-client.presenter';
import { ClientWithSecret, OauthClientsService } from './oauth-clients.service';

function withSecret({ client, secret }: ClientWithSecret) {
  return { ...presentOauthClient(client), client_secret: secret, client_secret_note: CLIENT_SECRET_NOTE };
}

@LedgerApiController('oauth_clients', 'OAuth clients')
export class OauthClientsController {
  constructor(private readonly clients: OauthClientsService) {}

  @Get()
  @RequireScope('ledger:clients:read')
  @ApiOperation({ summary: "List the organization's clients of the token's mode (one page, never secrets)" })
  async list(@Tenant() tenant: TenantScope, @Query() query: ListOauthClientsQuery) {
    // The other mode's clients are invisible, so asking for them finds none.
    const clients = query.mode && query.mode !== tenant.mode ? [] : await this.clients.list(tenant);
    return new ListPage(clients.map(presentOauthClient));
  }

  @Post()
  @RequireScope('ledger:clients:write')
  @ApiOperation({ summary: 'Create a client; the secret is returned this once' })
  async create(@Tenant() tenant: TenantScope, @Body() body: CreateOauthClientDto) {
    if (body.mode !== tenant.mode) {
      throw LedgerErrors.error('forbidden', { message: `A ${tenant.mode}-mode token cannot create ${body.mode} clients`, param: 'mode' });
    }
    return withSecret(await this.clients.create(tenant, { name: body.name, ledgerId: body.ledger_id, scopes: body.scopes }));
  }

  @Get(':id')
  @RequireScope('ledger:clients:read')
  async get(@Tenant() tenant: TenantScope, @Param('id') id: string) {
    return presentOauthClient(await this.clients.get(tenant, id));
  }

  @Delete(':id')
  @RequireScope('ledger:clients:write')
  @ApiOperation({ summary: 'Disable a client: no new tokens; issued tokens live until they expire' })
  async remove(@Tenant() tenant: TenantScope, @Param('id') id: string) {
    const client = await this.clients.disable(tenant, id, new Date());
    return { object: 'oauth_client' as const, id: client.id, deleted: true };
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @RequireScope('ledger:clients:write')
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
