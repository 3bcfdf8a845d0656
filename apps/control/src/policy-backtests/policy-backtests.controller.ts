import { Body, Controller, Get, Param, ParseUUIDPipe, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { ListQueryDto } from '../common/pagination';
import { IdentityGuard } from '../identity/identity.guard';
import { CurrentWorkspace, RequireCapability, WorkspaceAccessGuard } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { PolicyBacktestCreateDto } from './dto/policy-backtest-create.dto';
import { BACKTEST_DOC, PolicyBacktestChangeSchema, PolicyBacktestSchema } from './policy-backtest.schema';
import { PolicyBacktestsService } from './policy-backtests.service';

@ApiTags('policy backtests')
@ApiBearerAuth('identity_token')
@UseGuards(IdentityGuard, WorkspaceAccessGuard)
@Controller('control/v1/workspaces/:workspace_slug/policy_backtests')
export class PolicyBacktestsController {
  constructor(private readonly backtests: PolicyBacktestsService) {}

  @Post()
  @RequireCapability('read')
  @ApiData(PolicyBacktestSchema, 201)
  @ApiData(PolicyBacktestSchema, 202)
  @ApiOperation({
    summary: 'Backtest a draft policy over recorded decisions: 201 completed (small windows) or 202 queued; 422 for an invalid draft or window',
    description: BACKTEST_DOC,
  })
  async create(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Body() dto: PolicyBacktestCreateDto, @Res({ passthrough: true }) res: Response) {
    const { backtest, completed } = await this.backtests.create(workspace.id, dto);
    res.status(completed ? 201 : 202);
    return { data: backtest };
  }

  @Get()
  @RequireCapability('read')
  @ApiPage(PolicyBacktestSchema)
  @ApiOperation({ summary: 'Backtests, newest first' })
  list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() page: ListQueryDto) {
    return this.backtests.list(workspace.id, page);
  }

  @Get(':id')
  @RequireCapability('read')
  @ApiData(PolicyBacktestSchema)
  @ApiOperation({ summary: 'A backtest with its status, progress and, once completed, its result' })
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: await this.backtests.get(workspace.id, id) };
  }

  @Get(':id/changes')
  @RequireCapability('read')
  @ApiPage(PolicyBacktestChangeSchema)
  @ApiOperation({ summary: 'The decisions whose outcome, rule or remedy the draft changed, in evaluation order (agent, then time)' })
  changes(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string, @Query() page: ListQueryDto) {
    return this.backtests.changes(workspace.id, id, page);
  }
}
