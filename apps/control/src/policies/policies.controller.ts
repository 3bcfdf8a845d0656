import { Body, Get, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { TraceId } from '../common/trace-id.decorator';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { ListPoliciesDto, PolicyWriteDto } from './dto/policy-write.dto';
import { PoliciesService } from './policies.service';
import { PolicySchema } from './policy.schema';

/**
 * An agent's policies. Each active one is a gate every authorization passes (oldest first); an agent
 * with none is denied everything (`no_policy`). Writes bump `version`; `policy_version` is the content
 * digest a decision pins.
 */
@WorkspaceRoutes('policies')
export class PoliciesController {
  constructor(private readonly policies: PoliciesService) {}

  @Post()
  @RequireCapability('manage_policy')
  @ApiData(PolicySchema, 201)
  async create(@CurrentWorkspace() { workspace, membership }: WorkspaceAccess, @Body() dto: PolicyWriteDto, @TraceId() traceId: string) {
    return { data: await this.policies.create(workspace.id, dto, membership.user_sub, traceId) };
  }

  @Get()
  @RequireCapability('read')
  @ApiPage(PolicySchema)
  list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() { agent_id, ...page }: ListPoliciesDto) {
    return this.policies.list(workspace.id, agent_id, page);
  }

  @Get(':id')
  @RequireCapability('read')
  @ApiData(PolicySchema)
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: await this.policies.get(workspace.id, id) };
  }

  @Patch(':id')
  @RequireCapability('manage_policy')
  @ApiData(PolicySchema)
  async update(
    @CurrentWorkspace() { workspace, membership }: WorkspaceAccess,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: PolicyWriteDto,
    @TraceId() traceId: string,
  ) {
    return { data: await this.policies.update(workspace.id, id, dto, membership.user_sub, traceId) };
  }
}
