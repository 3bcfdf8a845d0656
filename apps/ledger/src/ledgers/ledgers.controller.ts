import { Body, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireScope, Tenant } from '../auth/require-scope.decorator';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerErrors } from '../common/ledger-errors';
import { TenantScope } from '../common/mode';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CONDITIONAL_UPDATE, Preconditions, RequestPreconditions, withValidators } from '../common/preconditions';
import { CreateLedgerDto } from './dto/create-ledger.dto';
import { ListLedgersQuery } from './dto/list-ledgers.query';
import { UpdateLedgerDto } from './dto/update-ledger.dto';
import { ledgerValidators, presentLedger } from './ledger.presenter';
import { LedgersService } from './ledgers.service';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerResponse } from './dto/ledger.response';

@LedgerApiController('ledgers', 'Ledgers')
export class LedgersController {
  constructor(private readonly ledgers: LedgersService) {}

  @Get()
  @RequireScope('ledger:read')
  @ApiEnveloped(LedgerResponse, { list: true })
  @ApiOperation({ summary: "The organization's ledgers of the token's mode, oldest first" })
  async list(@Tenant() tenant: TenantScope, @Query() query: ListLedgersQuery) {
    // The other mode's ledgers are invisible, so asking for them finds none.
    if (query.mode && query.mode !== tenant.mode) return ListPage.empty(query);
    return this.ledgers.list(tenant, { includeArchived: query.include_archived === 'true' }, query, presentLedger);
  }

  @Post()
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiEnveloped(LedgerResponse, { status: 201 })
  @ApiOperation({ summary: "Create a ledger in the token's mode" })
  async create(@Tenant() tenant: TenantScope, @Body() body: CreateLedgerDto) {
    if (body.mode !== tenant.mode) {
      throw LedgerErrors.error('forbidden', { message: `A ${tenant.mode}-mode token cannot create ${body.mode} ledgers`, param: 'mode' });
    }
    return presentLedger(await this.ledgers.create(tenant, { name: body.name, description: body.description, metadata: body.metadata }));
  }

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiEnveloped(LedgerResponse)
  @ApiOperation({ summary: 'One ledger, with ETag and Last-Modified for conditional updates' })
  async get(@Tenant() tenant: TenantScope, @Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const ledger = await this.ledgers.get(tenant, id);
    return withValidators(res, ledgerValidators(ledger), presentLedger(ledger));
  }

  @Patch(':id')
  @RequireScope('ledger:write')
  @ApiEnveloped(LedgerResponse)
  @ApiOperation({
    summary: 'Rename, describe, tag or archive a ledger (archived_at: a timestamp archives, null restores)',
    description: CONDITIONAL_UPDATE,
  })
  async update(
    @Tenant() tenant: TenantScope,
    @Param('id') id: string,
    @Body() body: UpdateLedgerDto,
    @RequestPreconditions() pre: Preconditions,
    @Res({ passthrough: true }) res: Response,
  ) {
    const ledger = await this.ledgers.update(tenant, id, toChanges(body, tenant), pre);
    return withValidators(res, ledgerValidators(ledger), presentLedger(ledger));
  }
}

function toChanges(body: UpdateLedgerDto, tenant: TenantScope) {
  if (body.mode !== undefined && body.mode !== tenant.mode) {
    throw LedgerErrors.error('immutable_field', { message: 'A ledger keeps the mode it was created in', param: 'mode' });
  }
  return {
    ...(body.name !== undefined && { name: body.name }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.metadata !== undefined && { metadata: body.metadata }),
    ...(body.archived_at !== undefined && { archivedAt: body.archived_at === null ? null : new Date(body.archived_at) }),
  };
}
