import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { IdentityGuard } from '../identity/identity.guard';
import { CurrentWorkspace, RequireCapability, WorkspaceAccessGuard } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { PolicyVersionSchema } from './policy-version.schema';
import { presentPolicyVersion, PolicyVersionsService } from './policy-versions.service';

/** The policy versions decisions of this workspace were made under; 404 for one it never used. */
@ApiTags('policies')
@ApiBearerAuth('identity_token')
@UseGuards(IdentityGuard, WorkspaceAccessGuard)
@Controller('control/v1/workspaces/:workspace_slug/policy_versions')
export class PolicyVersionsController {
  constructor(private readonly versions: PolicyVersionsService) {}

  @Get(':policy_version')
  @RequireCapability('read')
  @ApiOperation({ summary: 'The rules a decision pinned by its policy_version, exactly as evaluated' })
  @ApiData(PolicyVersionSchema)
  async get(@CurrentWorkspace() { workspace }: WorkspaceAccess, @Param('policy_version') id: string) {
    return { data: presentPolicyVersion(await this.versions.get(workspace.id, id)) };
  }
}
