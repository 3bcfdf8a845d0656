import { Body, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOperation } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { InlineRunDto, ListRunsQuery, SourceRunDto } from './dto/reconciliation-run.dto';
import { ReconciliationRunResponse } from './dto/reconciliation-run.response';
import { presentRun, runEnvelopeJson } from './reconciliation-run.presenter';
import { ReconciliationRunsService } from './reconciliation-runs.service';

const IN_PROGRESS = 'run_in_progress: the source already has a queued or running run (also when two requests race)';
const STARTED =
  'The run: completed (or failed) when it covered at most 500 open rows, else queued with empty arrays; poll GET /reconciliation_runs/{id}';

@LedgerApiController('', 'Reconciliation runs')
export class ReconciliationRunsController {
  constructor(private readonly runs: ReconciliationRunsService) {}

  @Post('reconciliation_runs')
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary:
      'Inline run: ingest the items into the named source (created implicitly if new) and reconcile them against unreconciled ' +
      'posted postings: passes external_ref, exact (within window_seconds), then sum_in_window when asked',
  })
  @ApiEnveloped(ReconciliationRunResponse, { status: 201, description: STARTED })
  @ApiConflictResponse({ description: IN_PROGRESS })
  async inline(@CurrentLedger() ledger: LedgerScope, @Body() body: InlineRunDto) {
    return presentRun(await this.runs.inline(ledger, body), true);
  }

  @Post('sources/:id/reconciliation_runs')
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({ summary: "Source run: reconcile the source's open rows (occurred_at in [from, to) when given) with its default settings" })
  @ApiEnveloped(ReconciliationRunResponse, { status: 201, description: STARTED })
  @ApiConflictResponse({ description: IN_PROGRESS })
  @ApiNotFoundResponse({ description: 'not_found: no such source in this ledger' })
  async forSource(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: SourceRunDto) {
    return presentRun(await this.runs.forSource(ledger, id, body), true);
  }

  @Get('reconciliation_runs')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'Newest runs first, counts only (no result arrays); never pages: has_more false, next_cursor null' })
  @ApiEnveloped(ReconciliationRunResponse, { list: true })
  async list(@CurrentLedger() ledger: LedgerScope, @Query() query: ListRunsQuery) {
    return new ListPage((await this.runs.list(ledger, query.limit)).map((run) => presentRun(run, false)));
  }

  @Get('reconciliation_runs/:id')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'The whole run, with matched, unmatched_external and unmatched_internal' })
  @ApiEnveloped(ReconciliationRunResponse)
  @ApiNotFoundResponse({ description: 'not_found' })
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Req() req: Request, @Res() res: Response) {
    const run = await this.runs.get(ledger, id);
    // Written here rather than by the envelope interceptor, so a large run's arrays go out as stored.
    res.type('application/json').send(runEnvelopeJson(run, { livemode: req.livemode ?? false, request_id: String(req.id) }));
  }
}
