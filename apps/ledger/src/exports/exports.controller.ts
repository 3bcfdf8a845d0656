import { Body, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { CreateExportDto } from './dto/create-export.dto';
import { ExportResponse } from './dto/export.response';
import { ExportsService } from './exports.service';

@LedgerApiController('exports', 'Exports')
export class ExportsController {
  constructor(private readonly exports: ExportsService) {}

  @Post()
  @HttpCode(202)
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiEnveloped(ExportResponse, { status: 202, description: 'Export accepted (pending); it is written in the background' })
  @ApiOperation({
    summary: 'Export the ledger as NDJSON files, one per resource, written in the background',
    description:
      'The export moves pending -> running -> ready | failed; poll GET /exports/{id}. Each line of a file is one ' +
      'object exactly as the API presents it, all files read from one consistent snapshot of the ledger. A ready ' +
      'export lists signed download_urls (no bearer token needed) valid for 7 days. An idempotent replay answers 200.',
  })
  async create(@CurrentLedger() ledger: LedgerScope, @Body() body: CreateExportDto) {
    return this.exports.create(ledger, body);
  }

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiEnveloped(ExportResponse)
  @ApiOperation({ summary: 'An export, with its download links once ready' })
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return this.exports.get(ledger, id);
  }
}
