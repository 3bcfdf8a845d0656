import { Body, HttpCode, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AccessGrant } from '../auth/access-token.service';
import { Caller, RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { presentAnonymization } from './anonymization.presenter';
import { AnonymizationService } from './anonymization.service';
import { AnonymizationResultResponse } from './dto/anonymization-result.response';
import { AnonymizeDto } from './dto/anonymize.dto';

@LedgerApiController('tenants/me', 'Tenant')
export class AnonymizationController {
  constructor(private readonly anonymization: AnonymizationService) {}

  @Post('anonymize')
  @HttpCode(202)
  @RequireScope('ledger:write')
  @ApiEnveloped(AnonymizationResultResponse, { status: 202, description: 'Anonymization committed' })
  @ApiOperation({
    summary: "Irreversibly erase the organization's metadata and party references in the token's mode",
    description:
      'Step-up: the access token must have been issued within the last five minutes, else 401 ' +
      'fresh_authentication_required. Clears metadata on accounts, transactions (and their external ' +
      'refs), postings (tags), events and webhook delivery bodies, and sets counterparty_ref, ' +
      'sender_party_id and recipient_party_id to REDACTED, across every ledger of the mode. Amounts, ' +
      'balances and the links between transactions are kept (including the ledger-written ' +
      'metadata markers _refund_of and _reverses_value_date). All or nothing; writes arriving ' +
      'meanwhile wait and land after it. Ledger and template metadata are configuration and are kept.',
  })
  async anonymize(@Caller() caller: AccessGrant, @Body() body: AnonymizeDto) {
    return presentAnonymization(await this.anonymization.anonymize(caller, body.reason ?? null));
  }
}
