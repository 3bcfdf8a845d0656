import { Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { AuditEventSchema } from './audit-event.schema';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { AuditService } from './audit.service';
import { ListAuditEventsDto } from './dto/list-audit-events.dto';

/** The workspace's audit log, newest first; readable by every role. */
@WorkspaceRoutes('audit_events')
@RequireCapability('read')
export class AuditEventsController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @ApiPage(AuditEventSchema)
  list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ListAuditEventsDto) {
    const { limit, starting_after, ...filter } = query;
    return this.audit.list(workspace.id, filter, { limit, starting_after });
  }

  @Get(':id')
  @ApiData(AuditEventSchema)
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: await this.audit.get(workspace.id, id) };
  }
}
