import { Body, Get, Param, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { RequireScope } from '../auth/require-scope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { PageQuery } from '../common/pagination';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { AccountTemplateResponse } from './dto/account-template.response';
import { presentAccountTemplate } from './account-template.presenter';
import { AccountTemplatesService } from './account-templates.service';
import { CreateAccountTemplateDto } from './dto/create-account-template.dto';

@LedgerApiController('account_templates', 'Account templates')
export class AccountTemplatesController {
  constructor(private readonly templates: AccountTemplatesService) {}

  @Post()
  @RequireScope('ledger:write')
  @ApiEnveloped(AccountTemplateResponse, { status: 201 })
  @ApiOperation({ summary: 'Create an immutable account template (409 already_exists for a taken name)' })
  async create(@CurrentLedger() ledger: LedgerScope, @Body() body: CreateAccountTemplateDto) {
    return presentAccountTemplate(await this.templates.create(ledger, body));
  }

  @Get()
  @RequireScope('ledger:read')
  @ApiEnveloped(AccountTemplateResponse, { list: true })
  @ApiOperation({ summary: 'List account templates, newest first' })
  list(@CurrentLedger() ledger: LedgerScope, @Query() query: PageQuery) {
    return this.templates.list(ledger, query);
  }

  @Get(':name')
  @RequireScope('ledger:read')
  @ApiEnveloped(AccountTemplateResponse)
  async get(@CurrentLedger() ledger: LedgerScope, @Param('name') name: string) {
    return presentAccountTemplate(await this.templates.get(ledger, name));
  }
}
