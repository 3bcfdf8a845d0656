import { Body, Get, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiPlanLimit } from '../billing/plan-limit.openapi';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { ListQueryDto } from '../common/pagination';
import { TraceId } from '../common/trace-id.decorator';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { AgentSchema, CreatedAgentSchema } from './agent.schema';
import { AgentsService, presentAgent } from './agents.service';
import { CreateAgentDto } from './dto/create-agent.dto';
import { UpdateAgentDto } from './dto/update-agent.dto';

@WorkspaceRoutes('agents')
export class AgentsController {
  constructor(private readonly agents: AgentsService) {}

  @Post()
  @RequireCapability('manage_policy')
  @ApiData(CreatedAgentSchema, 201)
  @ApiPlanLimit('the plan has no agent seat left (revoked agents free theirs), or a live agent on a plan without live mode')
  async create(@CurrentWorkspace() { workspace, membership }: WorkspaceAccess, @Body() dto: CreateAgentDto, @TraceId() traceId: string) {
    const { agent, apiKey, starterPolicy } = await this.agents.create(workspace.id, dto, membership.user_sub, traceId);
    return { data: { ...presentAgent(agent), api_key: apiKey, starter_policy: starterPolicy } };
  }

  @Get()
  @RequireCapability('read')
  @ApiPage(AgentSchema)
  list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ListQueryDto) {
    return this.agents.list(workspace.id, query);
  }

  @Get(':id')
  @RequireCapability('read')
  @ApiData(AgentSchema)
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: presentAgent(await this.agents.get(workspace.id, id)) };
  }

  @Patch(':id')
  @RequireCapability('manage_policy')
  @ApiData(AgentSchema)
  async update(
    @CurrentWorkspace() { workspace, membership }: WorkspaceAccess,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateAgentDto,
    @TraceId() traceId: string,
  ) {
    return { data: presentAgent(await this.agents.update(workspace.id, id, dto, membership.user_sub, traceId)) };
  }
}
