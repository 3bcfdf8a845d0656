import { Body, Controller, Get, Param, ParseUUIDPipe, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { TraceId } from '../common/trace-id.decorator';
import { IdentityGuard } from '../identity/identity.guard';
import { CurrentWorkspace, RequireCapability, WorkspaceAccessGuard } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { AgentsService, presentAgent } from './agents.service';
import { CreateAgentDto } from './dto/create-agent.dto';
import { UpdateAgentDto } from './dto/update-agent.dto';

@ApiTags('agents')
@ApiBearerAuth('identity_token')
@UseGuards(IdentityGuard, WorkspaceAccessGuard)
@Controller('control/v1/workspaces/:workspace_slug/agents')
export class AgentsController {
  constructor(private readonly agents: AgentsService) {}

  @Post()
  @RequireCapability('manage_policy')
  async create(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Body() dto: CreateAgentDto, @TraceId() traceId: string) {
    const { agent, apiKey } = await this.agents.create(workspace.id, dto, traceId);
    return { data: { ...presentAgent(agent), api_key: apiKey, starter_policy: null } };
  }

  @Get()
  @RequireCapability('read')
  async list(@CurrentWorkspace() { workspace }: WorkspaceAccess) {
    return { data: (await this.agents.list(workspace.id)).map(presentAgent) };
  }

  @Get(':id')
  @RequireCapability('read')
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: presentAgent(await this.agents.get(workspace.id, id)) };
  }

  @Patch(':id')
  @RequireCapability('manage_policy')
  async update(
    @CurrentWorkspace() { workspace }: WorkspaceAccess,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateAgentDto,
    @TraceId() traceId: string,
  ) {
    return { data: presentAgent(await this.agents.update(workspace.id, id, dto, traceId)) };
  }
}
