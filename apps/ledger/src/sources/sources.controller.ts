import { Body, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { PageQuery } from '../common/pagination';
import { Preconditions, RequestPreconditions, withValidators } from '../common/preconditions';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { CreateSourceDto, UpdateSourceDto } from './dto/source.dto';
import { SourceResponse } from './dto/source.response';
import { SourceSettings } from './sources.repository';
import { SourcesService } from './sources.service';

function settingsOf(body: UpdateSourceDto & { kind?: string }): SourceSettings {
  return {
    kind: body.kind,
    description: body.description,
    defaultStrategy: body.default_strategy,
    defaultWindowSeconds: body.default_window_seconds,
    defaultToleranceMinorUnits: body.default_tolerance_minor_units == null ? undefined : String(body.default_tolerance_minor_units),
    defaultAccountId: body.default_account_id,
    accountMap: body.account_map === undefined ? undefined : (body.account_map ?? {}),
    csvMapping: body.csv_mapping,
    metadata: body.metadata,
  };
}

@LedgerApiController('sources', 'Sources')
export class SourcesController {
  constructor(private readonly sources: SourcesService) {}

  @Post()
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary:
      'Create a source of external transactions. The name is lowercased and unique per ledger (409 already_exists), ' +
      'except that naming a source an inline run created implicitly promotes it (implicit false, these settings) with 201',
  })
  @ApiEnveloped(SourceResponse, { status: 201 })
  async create(@CurrentLedger() ledger: LedgerScope, @Body() body: CreateSourceDto) {
    return this.sources.present(await this.sources.create(ledger, body.name, settingsOf(body)));
  }

  @Get()
  @RequireScope('ledger:read')
  @ApiOperation({ summary: "The ledger's sources, newest first" })
  @ApiEnveloped(SourceResponse, { list: true })
  list(@CurrentLedger() ledger: LedgerScope, @Query() query: PageQuery) {
    return this.sources.list(ledger, query);
  }

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'One source, with ETag and Last-Modified for conditional updates' })
  @ApiEnveloped(SourceResponse)
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const source = await this.sources.get(ledger, id);
    return withValidators(res, this.sources.validators(source), this.sources.present(source));
  }

  @Patch(':id')
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary: 'Change description, metadata or account_map (each replaced whole), csv_mapping or the default_* matching settings; honours If-Match and If-Unmodified-Since',
  })
  @ApiEnveloped(SourceResponse)
  async update(
    @CurrentLedger() ledger: LedgerScope,
    @Param('id') id: string,
    @Body() body: UpdateSourceDto,
    @RequestPreconditions() pre: Preconditions,
    @Res({ passthrough: true }) res: Response,
  ) {
    const source = await this.sources.update(ledger, id, settingsOf(body), pre);
    return withValidators(res, this.sources.validators(source), this.sources.present(source));
  }
}
