import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiPlanLimit } from '../billing/plan-limit.openapi';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { ListQueryDto } from '../common/pagination';
import { TraceId } from '../common/trace-id.decorator';
import { CurrentIdentity, IdentityGuard } from '../identity/identity.guard';
import type { Identity } from '../identity/identity-token.verifier';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { CreateInvitationDto } from './dto/create-invitation.dto';
import { InvitationTokenDto } from './dto/invitation-token.dto';
import { AcceptedInvitationSchema, CreatedInvitationSchema, InvitationLookupSchema, InvitationSchema } from './invitation.schema';
import { InvitationsService, presentInvitation } from './invitations.service';

/** A workspace's open invitations; creating one returns its one-time `token`. */
@WorkspaceRoutes('invitations')
export class WorkspaceInvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post()
  @RequireCapability('manage_members')
  @ApiData(CreatedInvitationSchema, 201)
  async create(@CurrentWorkspace() access: WorkspaceAccess, @Body() dto: CreateInvitationDto, @TraceId() traceId: string) {
    const { invitation, token } = await this.invitations.create(access, dto, traceId);
    return { data: { ...presentInvitation(invitation), token } };
  }

  @Get()
  @RequireCapability('read')
  @ApiPage(InvitationSchema)
  list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ListQueryDto) {
    return this.invitations.listOpen(workspace.id, query);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireCapability('manage_members')
  async revoke(@CurrentWorkspace() access: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string, @TraceId() traceId: string) {
    await this.invitations.revoke(access, id, traceId);
  }
}

/** The invited person's side: look a link's token up, then accept it. */
@ApiTags('invitations')
@ApiBearerAuth('identity_token')
@UseGuards(IdentityGuard)
@Controller('control/v1/invitations')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Get('lookup')
  @ApiData(InvitationLookupSchema)
  async lookup(@CurrentIdentity() identity: Identity, @Query() { token }: InvitationTokenDto) {
    return { data: await this.invitations.lookup(identity, token) };
  }

  @Post('accept')
  @ApiData(AcceptedInvitationSchema, 201)
  @ApiPlanLimit('the invitation is not open or you are already a member; or the plan has no member seat left (the invitation then stays open)')
  async accept(@CurrentIdentity() identity: Identity, @Body() { token }: InvitationTokenDto, @TraceId() traceId: string) {
    return { data: await this.invitations.accept(identity, token, traceId) };
  }
}
