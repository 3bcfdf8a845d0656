import { Body, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { Preconditions, RequestPreconditions, validatorsOf, withValidators } from '../common/preconditions';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { presentAccount } from './account.presenter';
import { AccountsService } from './accounts.service';
import { AccountResponse } from './dto/account.response';
import { CloseAccountDto } from './dto/close-account.dto';
import { CreateAccountDto } from './dto/create-account.dto';
import { ListAccountsQuery } from './dto/list-accounts.query';
import { UpdateAccountDto } from './dto/update-account.dto';

@LedgerApiController('accounts', 'Accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @RequireScope('ledger:write')
  @ApiOperation({ summary: 'Create an account with a caller-chosen id (409 already_exists when taken)' })
  @ApiEnveloped(AccountResponse, { status: 201 })
  async create(@CurrentLedger() ledger: LedgerScope, @Body() body: CreateAccountDto) {
    return presentAccount(await this.accounts.create(ledger, body));
  }

  @Get()
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'List accounts, newest first' })
  @ApiEnveloped(AccountResponse, { list: true })
  list(@CurrentLedger() ledger: LedgerScope, @Query() query: ListAccountsQuery) {
    return this.accounts.list(ledger, query);
  }

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'Read an account; ETag and Last-Modified serve conditional PATCH' })
  @ApiEnveloped(AccountResponse)
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const account = await this.accounts.get(ledger, id);
    const presented = presentAccount(account);
    return withValidators(res, validatorsOf(presented, account.updatedAt), presented);
  }

  @Patch(':id')
  @RequireScope('ledger:write')
  @ApiOperation({
    summary: 'Change name, metadata, parent, ledgerable, classification or custody (If-Match honoured; 409 precondition_failed)',
  })
  @ApiEnveloped(AccountResponse)
  async update(
    @CurrentLedger() ledger: LedgerScope,
    @Param('id') id: string,
    @Body() body: UpdateAccountDto,
    @RequestPreconditions() pre: Preconditions,
  ) {
    return presentAccount(await this.accounts.update(ledger, id, body, pre));
  }

  @Post(':id/close')
  @HttpCode(200)
  @RequireScope('ledger:write')
  @ApiOperation({ summary: 'Close an account with zero posted and pending balance (409 account_balance_nonzero)' })
  @ApiEnveloped(AccountResponse)
  async close(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: CloseAccountDto) {
    return presentAccount(await this.accounts.close(ledger, id, body.closed_by_label));
  }
}
