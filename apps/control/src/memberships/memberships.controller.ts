import { Body, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiPlanLimit } from '../billing/plan-limit.openapi';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { ListQueryDto } from '../common/pagination';
import { TraceId } from '../common/trace-id.decorator';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { CreateMembershipDto } from './dto/create-membership.dto';
import { UpdateMembershipDto } from './dto/update-membership.dto';
import { MembershipSchema } from './membership.schema';
import { MembershipsService, presentMembership } from './memberships.service';

/** Members of a workspace, oldest first. */
@WorkspaceRoutes('memberships')
export class MembershipsController {
  constructor(private readonly memberships: MembershipsService) {}

  @Get()
  @RequireCapability('read')
  @ApiPage(MembershipSchema)
  list(@CurrentWorkspace() access: WorkspaceAccess, @Query() query: ListQueryDto) {
    return this.memberships.list(access.workspace.id, query);
  }

  @Post()
  @RequireCapability('manage_members')
  @ApiData(MembershipSchema, 201)
  @ApiPlanLimit('already a member, or the plan has no member seat left')
  async add(@CurrentWorkspace() access: WorkspaceAccess, @Body() dto: CreateMembershipDto, @TraceId() traceId: string) {
    return { data: presentMembership(await this.memberships.add(access, dto, traceId)) };
  }

  @Patch(':id')
  @RequireCapability('manage_members')
  @ApiData(MembershipSchema)
  async update(
    @CurrentWorkspace() access: WorkspaceAccess,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateMembershipDto,
    @TraceId() traceId: string,
  ) {
    return { data: presentMembership(await this.memberships.changeRole(access, id, dto.role, traceId)) };
  }

  /** Needs manage_members, except for a person removing themselves (leaving). */
  @Delete(':id')
  @HttpCode(204)
  @RequireCapability('read')
  async remove(@CurrentWorkspace() access: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string, @TraceId() traceId: string) {
    await this.memberships.remove(access, id, traceId);
  }
}
