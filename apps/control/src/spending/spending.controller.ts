import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { IdentityGuard } from '../identity/identity.guard';
import { CurrentWorkspace, RequireCapability, WorkspaceAccessGuard } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { SpendingQueryDto } from './dto/spending-query.dto';
import { SpendingSchema } from './spending.schema';
import { SpendingService } from './spending.service';

/** The workspace's decisions added up for the console's Spending page; readable by every role. */
@ApiTags('spending')
@ApiBearerAuth('identity_token')
@UseGuards(IdentityGuard, WorkspaceAccessGuard)
@RequireCapability('read')
@Controller('control/v1/workspaces/:workspace_slug/spending')
export class SpendingController {
  constructor(private readonly spending: SpendingService) {}

  @Get()
  @ApiOperation({ summary: 'Decisions of a range added up by outcome: in total, per hour or day, per agent and per deciding rule' })
  @ApiData(SpendingSchema)
  async summarize(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: SpendingQueryDto) {
    return { data: await this.spending.summarize(workspace.id, query) };
  }
}
