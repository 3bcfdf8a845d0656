import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { DecisionSchema } from '../decisions/intent.schema';
import { IdentityGuard } from '../identity/identity.guard';
import { CurrentWorkspace, RequireCapability, WorkspaceAccessGuard } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { PolicyPreviewDto } from './dto/policy-preview.dto';
import { PolicyPreviewsService } from './policy-previews.service';

@ApiTags('policy previews')
@ApiBearerAuth('identity_token')
@UseGuards(IdentityGuard, WorkspaceAccessGuard)
@Controller('control/v1/workspaces/:workspace_slug/policy_previews')
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
