import { Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiData, ApiPage } from '../common/openapi-responses';
import { SpendTokenSchema } from './spend-token.schema';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { ListSpendTokensDto } from './dto/list-spend-tokens.dto';
import { presentSpendToken } from './spend-token.presenter';
import { SpendTokensService } from './spend-tokens.service';

/** The workspace's read-only view of the tokens its agents minted. */
@WorkspaceRoutes('spend_tokens')
@RequireCapability('read')
export class SpendTokensController {
  constructor(private readonly tokens: SpendTokensService) {}

  @Get()
  @ApiPage(SpendTokenSchema)
  list(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Query() query: ListSpendTokensDto) {
    const { limit, starting_after, ...filter } = query;
    return this.tokens.list(workspace.id, filter, { limit, starting_after });
  }

  @Get(':id')
  @ApiData(SpendTokenSchema)
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('id', ParseUUIDPipe) id: string) {
    return { data: presentSpendToken(await this.tokens.get(workspace.id, id)) };
  }
}
