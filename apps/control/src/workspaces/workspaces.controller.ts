import { Body, Controller, Delete, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { TraceId } from '../common/trace-id.decorator';
import { CurrentIdentity, IdentityGuard } from '../identity/identity.guard';
import type { Identity } from '../identity/identity-token.verifier';
import { WorkspaceSchema } from './workspace.schema';
import { CreateWorkspaceDto } from './dto/create-workspace.dto';
import { DeleteWorkspaceDto } from './dto/delete-workspace.dto';
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
  @ApiData(WorkspaceSchema, 201)
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
  @ApiData(WorkspaceSchema)
  get(@CurrentWorkspace() access: WorkspaceAccess) {
    return { data: presentWorkspace(access) };
  }

  @Delete(':workspace_slug')
  @HttpCode(204)
  @UseGuards(WorkspaceAccessGuard)
  @RequireCapability('manage_members')
  async delete(@CurrentWorkspace() access: WorkspaceAccess, @Body() dto: DeleteWorkspaceDto, @TraceId() traceId: string) {
    await this.workspaces.delete(access, dto.confirm, traceId);
  }

  @Get(':workspace_slug/export')
  @UseGuards(WorkspaceAccessGuard)
  @RequireCapability('manage_members')
  async export(@CurrentWorkspace() access: WorkspaceAccess) {
    return { data: await this.workspaces.export(access) };
  }
}
