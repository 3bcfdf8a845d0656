import { Get, Param } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiData } from '../common/openapi-responses';
import { CurrentWorkspace, RequireCapability, WorkspaceRoutes } from '../workspaces/workspace-access.guard';
import type { WorkspaceAccess } from '../workspaces/workspaces.repository';
import { PolicyVersionSchema } from './policy-version.schema';
import { presentPolicyVersion, PolicyVersionsService } from './policy-versions.service';

/** The policy versions decisions of this workspace were made under; 404 for one it never used. */
@WorkspaceRoutes('policy_versions', 'policies')
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
