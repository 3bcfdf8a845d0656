import { Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { BudgetSchema } from './budget.schema';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { BudgetsService, presentBudget } from './budgets.service';
import { ListBudgetsDto } from './dto/list-budgets.dto';

/** The workspace's read-only view of its agents' budgets (sessions). */
@WorkspaceRoutes('budgets')
@RequireCapability('read')
export class BudgetsController {
  constructor(private readonly budgets: BudgetsService) {}

  @Get()
  @ApiPage(BudgetSchema)
  list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ListBudgetsDto) {
    const { limit, starting_after, ...filter } = query;
    return this.budgets.list(workspace.id, filter, { limit, starting_after });
  }

  @Get(':id')
  @ApiData(BudgetSchema)
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: presentBudget(await this.budgets.getInWorkspace(workspace.id, id)) };
  }
}
