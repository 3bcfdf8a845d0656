import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { ListQueryDto, mapPage } from '../common/pagination';
import { TraceId } from '../common/trace-id.decorator';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { CreatePolicyModuleDto, UpdatePolicyModuleDto } from './dto/policy-module.dto';
import { PolicyModuleSchema } from './policy-module.schema';
import { PolicyModulesService, presentPolicyModule } from './policy-modules.service';

/** Policy modules are addressed by name; lists sort by name and page with `starting_after=<name>`. */
@WorkspaceRoutes('policy_modules')
export class PolicyModulesController {
  constructor(private readonly modules: PolicyModulesService) {}

  @Post()
  @RequireCapability('manage_policy')
  @ApiData(PolicyModuleSchema, 201)
  async create(@CurrentWorkspace() { workspace, membership }: WorkspaceAccess, @Body() dto: CreatePolicyModuleDto, @TraceId() traceId: string) {
    return { data: presentPolicyModule(await this.modules.create(workspace.id, dto, membership.user_sub, traceId)) };
  }

  @Get()
  @RequireCapability('read')
  @ApiPage(PolicyModuleSchema)
  async list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ListQueryDto) {
    return mapPage(await this.modules.list(workspace.id, query), presentPolicyModule);
  }

  @Get(':name')
  @RequireCapability('read')
  @ApiData(PolicyModuleSchema)
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('name') name: string) {
    return { data: presentPolicyModule(await this.modules.get(workspace.id, name)) };
  }

  @Patch(':name')
  @RequireCapability('manage_policy')
  @ApiData(PolicyModuleSchema)
  async update(
    @CurrentWorkspace() { workspace, membership }: WorkspaceAccess,
    @Param('name') name: string,
    @Body() dto: UpdatePolicyModuleDto,
    @TraceId() traceId: string,
  ) {
    return { data: presentPolicyModule(await this.modules.update(workspace.id, name, dto, membership.user_sub, traceId)) };
  }

  @Delete(':name')
  @HttpCode(204)
  @RequireCapability('manage_policy')
  @ApiResponse({ status: 204, description: 'Deleted; no body' })
  async delete(@CurrentWorkspace() { workspace, membership }: WorkspaceAccess, @Param('name') name: string, @TraceId() traceId: string) {
    await this.modules.delete(workspace.id, name, membership.user_sub, traceId);
  }
}
