import { Body, Controller, Get, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { TraceId } from '../common/trace-id.decorator';
import { CurrentIdentity, IdentityGuard } from '../identity/identity.guard';
import type { Identity } from '../identity/identity-token.verifier';
import { CreateWorkspaceDto } from './dto/create-workspace.dto';
import { CurrentWorkspace, RequireCapability, WorkspaceAccessGuard } from './workspace-access.guard';
import type { WorkspaceAccess } from './workspaces.repository';
import { presentWorkspace, WorkspacesService } from './workspaces.service';

@ApiTags('workspaces')
@ApiBearerAuth('identity_token')
@UseGuards(IdentityGuard)
@Controller('control/v1/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Post()
  async create(@CurrentIdentity() identity: Identity, @Body() dto: CreateWorkspaceDto, @TraceId() traceId: string) {
    return { data: presentWorkspace(await this.workspaces.create(identity, dto, traceId)) };
  }

  @Get()
  async list(@CurrentIdentity() identity: Identity) {
    return { data: (await this.workspaces.listMine(identity)).map(presentWorkspace) };
  }

  @Get(':workspace_slug')
  @UseGuards(WorkspaceAccessGuard)
  @RequireCapability('read')
  get(@CurrentWorkspace() access: WorkspaceAccess) {
    return { data: presentWorkspace(access) };
  }
}
