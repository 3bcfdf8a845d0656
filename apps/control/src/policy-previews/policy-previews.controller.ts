import { Body, HttpCode, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { DecisionSchema } from '../decisions/intent.schema';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { PolicyPreviewDto } from './dto/policy-preview.dto';
import { PolicyPreviewsService } from './policy-previews.service';

@WorkspaceRoutes('policy_previews')
export class PolicyPreviewsController {
  constructor(private readonly previews: PolicyPreviewsService) {}

  @Post()
  @HttpCode(200)
  @RequireCapability('read')
  @ApiData(DecisionSchema)
  @ApiOperation({ summary: 'Evaluate a draft policy; 200 {data: decision}, 422 for an invalid draft; nothing is saved' })
  async preview(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Body() dto: PolicyPreviewDto) {
    return { data: await this.previews.preview(workspace.id, dto) };
  }
}
