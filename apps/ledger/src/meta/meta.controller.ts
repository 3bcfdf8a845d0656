import { Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AccessGrant } from '../auth/access-token.service';
import { Caller, RequireScope } from '../auth/require-scope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerSettings } from '../config/ledger.settings';
import { OrganizationsService } from '../organizations/organizations.service';
import { describeCapabilities } from './capabilities';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { CapabilitiesResponse } from './capabilities.response';

@LedgerApiController('_meta', 'Meta')
export class MetaController {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly settings: LedgerSettings,
  ) {}

  @Get('capabilities')
  @RequireScope('ledger:read')
  @ApiEnveloped(CapabilitiesResponse)
  @ApiOperation({
    summary: 'Features, hard limits, plan, tenant status and organization model in force for the caller',
    description: 'Readable while the tenant is suspended (tenant_status: "suspended"), so clients can explain 403 tenant_suspended.',
  })
  async capabilities(@Caller() caller: AccessGrant) {
    return describeCapabilities(await this.organizations.get(caller.organizationId), this.settings);
  }
}
