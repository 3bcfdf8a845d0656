import { Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation } from '@nestjs/swagger';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { PageQuery } from '../common/pagination';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { ImportStatementQuery, StatementImportResponse } from './dto/statement.dto';
import { StatementRequest } from './statement-body.middleware';
import { presentStatementImport } from './statement-import.record';
import { StatementsService } from './statements.service';

@LedgerApiController('sources', 'Statements')
export class SourceStatementsController {
  constructor(private readonly statements: StatementsService) {}

  @Post(':id/statements')
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary:
      'Import one bank statement file (camt.053, MT940, BAI2, OFX, or CSV through the source csv_mapping; up to 50 MB, gzip accepted) as the raw body: ' +
      'every entry is ingested as an external transaction keyed by the bank reference, so a re-import creates nothing. ' +
      'A malformed file is 422 invalid_statement (line or XML path and field in the hint) and stores nothing',
  })
  @ApiConsumes('application/xml', 'text/plain', 'text/csv', 'application/octet-stream', 'application/gzip')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiEnveloped(StatementImportResponse, { status: 201 })
  async import(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() q: ImportStatementQuery, @Req() req: StatementRequest) {
    return presentStatementImport(await this.statements.import(ledger, id, req.statementFile ?? Buffer.alloc(0), q.format));
  }

  @Get(':id/statements')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: "The source's statement imports, newest first" })
  @ApiEnveloped(StatementImportResponse, { list: true })
  list(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() query: PageQuery) {
    return this.statements.listForSource(ledger, id, query);
  }
}

@LedgerApiController('statements', 'Statements')
export class StatementsController {
  constructor(private readonly statements: StatementsService) {}

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiEnveloped(StatementImportResponse)
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return presentStatementImport(await this.statements.get(ledger, id));
  }
}
