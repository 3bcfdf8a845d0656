import { Body, Get, HttpCode, Injectable, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { TraceId } from '../common/trace-id.decorator';
import { DecisionReplayService } from '../decisions/decision-replay.service';
import { ApiIntentData, ApiIntentQueue, DecisionReplaySchema } from '../decisions/intent.schema';
import { IntentKind } from '../decisions/intent.entity';
import { presentIntent } from '../decisions/intent.presenter';
import { IntentLifecycleService } from '../decisions/intent-lifecycle.service';
import { CurrentWorkspace, RequireCapability } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { ApprovalsService } from './approvals.service';
import { DenyIntentDto, IntentQueueDto } from './dto/intent-queue.dto';
import { IntentImpactSchema } from './intent-impact.schema';

/**
 * The workspace routes action and payment intents share: the queue (with `summary`), one intent,
 * its impact, and approve/deny of a hold (capability `approve`; a resolved intent answers 422).
 * Injectable so the subclasses inherit its constructor's injection metadata.
 */
@Injectable()
export abstract class IntentApprovalsController {
  protected abstract readonly kind: IntentKind;

  constructor(
    private readonly approvals: ApprovalsService,
    private readonly lifecycle: IntentLifecycleService,
    private readonly replays: DecisionReplayService,
  ) {}

  @Get()
  @RequireCapability('read')
  @ApiOperation({ summary: 'The intents of this kind matching the filters, with summary {total, total_cents} over every match' })
  @ApiIntentQueue()
  async list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: IntentQueueDto) {
    const page = await this.approvals.queue(workspace.id, this.kind, query);
    return { ...page, data: page.data.map(presentIntent) };
  }

  @Get(':id')
  @RequireCapability('read')
  @ApiIntentData()
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: presentIntent(await this.approvals.get(workspace.id, this.kind, id)) };
  }

  @Get(':id/impact')
  @RequireCapability('read')
  @ApiOperation({ summary: 'What approving would do: the budget it draws on, what a deny returns, the spend windows it counts in' })
  @ApiData(IntentImpactSchema)
  async impact(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: await this.approvals.impact(workspace.id, this.kind, id) };
  }

  @Post(':id/replay')
  @HttpCode(200)
  @RequireCapability('read')
  @ApiOperation({
    summary: 'Recompute the decision from its stored request under the pinned policy version and the counters it read; writes only an audit event',
  })
  @ApiData(DecisionReplaySchema)
  async replay(@CurrentWorkspace() { workspace, membership }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string, @TraceId() traceId: string) {
    return { data: await this.replays.replay(workspace.id, this.kind, id, membership.user_sub, traceId) };
  }

  @Post(':id/approve')
  @HttpCode(200)
  @RequireCapability('approve')
  @ApiOperation({ summary: 'Approve a held intent; a resolved one answers 422' })
  @ApiIntentData()
  async approve(@CurrentWorkspace() { workspace, membership }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string, @TraceId() traceId: string) {
    const intent = await this.lifecycle.approve({ workspaceId: workspace.id, kind: this.kind }, id, membership.user_sub, traceId);
    return { data: presentIntent(intent) };
  }

  @Post(':id/deny')
  @HttpCode(200)
  @RequireCapability('approve')
  @ApiOperation({ summary: 'Deny a held intent, releasing its reservation; a resolved one answers 422' })
  @ApiIntentData()
  async deny(
    @CurrentWorkspace() { workspace, membership }: WorkspaceAccess,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: DenyIntentDto,
    @TraceId() traceId: string,
  ) {
    const intent = await this.lifecycle.deny({ workspaceId: workspace.id, kind: this.kind }, id, membership.user_sub, dto.reason, traceId);
    return { data: presentIntent(intent) };
  }
}
