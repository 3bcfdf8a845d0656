import { Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { RequireScope, Caller } from '../auth/require-scope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { AccessGrant } from '../auth/access-token.service';
import { presentOrganization } from './organization.presenter';
import { OrganizationsService } from './organizations.service';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { OrganizationResponse } from './organization.response';

@LedgerApiController('organizations', 'Organizations')
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get('me')
  @RequireScope('ledger:read')
  @ApiEnveloped(OrganizationResponse)
  @ApiOperation({ summary: "The caller's organization" })
  async me(@Caller() caller: AccessGrant) {
    return presentOrganization(await this.organizations.get(caller.organizationId));
  }
}
