import { Get, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { SpendingQueryDto } from './dto/spending-query.dto';
import { SpendingSchema } from './spending.schema';
import { SpendingService } from './spending.service';

/** The workspace's decisions added up for the console's Spending page; readable by every role. */
@WorkspaceRoutes('spending')
@RequireCapability('read')
export class SpendingController {
  constructor(private readonly spending: SpendingService) {}

  @Get()
  @ApiOperation({ summary: 'Decisions of a range added up by outcome: in total, per hour or day, per agent and per deciding rule' })
  @ApiData(SpendingSchema)
  async summarize(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: SpendingQueryDto) {
    return { data: await this.spending.summarize(workspace.id, query) };
  }
}
