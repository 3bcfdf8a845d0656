import { Body, Get, HttpCode, Injectable, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { TraceId } from '../common/trace-id.decorator';
import { IntentKind } from '../decisions/intent.entity';
import { presentIntent } from '../decisions/intent.presenter';
import { IntentLifecycleService } from '../decisions/intent-lifecycle.service';
import { CurrentWorkspace, RequireCapability } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { ApprovalsService } from './approvals.service';
import { DenyIntentDto, IntentQueueDto } from './dto/intent-queue.dto';

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
  ) {}

  @Get()
  @RequireCapability('read')
  async list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: IntentQueueDto) {
    const page = await this.approvals.queue(workspace.id, this.kind, query);
    return { ...page, data: page.data.map(presentIntent) };
  }

  @Get(':id')
  @RequireCapability('read')
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: presentIntent(await this.approvals.get(workspace.id, this.kind, id)) };
  }

  @Get(':id/impact')
  @RequireCapability('read')
  async impact(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: await this.approvals.impact(workspace.id, this.kind, id) };
  }

  @Post(':id/approve')
  @HttpCode(200)
  @RequireCapability('approve')
  async approve(@CurrentWorkspace() { workspace, membership }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string, @TraceId() traceId: string) {
    const intent = await this.lifecycle.approve({ workspaceId: workspace.id, kind: this.kind }, id, membership.user_sub, traceId);
    return { data: presentIntent(intent) };
  }

  @Post(':id/deny')
  @HttpCode(200)
  @RequireCapability('approve')
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
