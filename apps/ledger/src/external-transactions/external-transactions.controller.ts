import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { normalizeCurrency } from '../accounts/currencies';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { WriteRoute } from '../common/write-route.decorator';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { presentPosting } from '../postings/posting.presenter';
import { PostingResponse } from '../postings/dto/posting.response';
import { SourcesService } from '../sources/sources.service';
import { IgnoreDto, IngestDto, ListExternalTransactionsQuery, MatchDto, PostingReconciliationDto, UnmatchDto } from './dto/external-transaction.dto';
import { ExternalTransactionResponse, IngestResultResponse, ReconciliationMatchResponse } from './dto/external-transaction.responses';
import { presentExternalTransaction } from './external-transaction.record';
import { ExternalTransactionsService } from './external-transactions.service';
import { presentIngestResult } from './ingest-result.presenter';
import { presentMatch } from './reconciliation-match.record';

/** A change of a row's state, answered with the row (200). */
const RowChange = (action: string, summary: string) =>
  WriteRoute(`:id/${action}`, ApiEnveloped(ExternalTransactionResponse), ApiOperation({ summary }), HttpCode(200));

@LedgerApiController('external_transactions', 'External transactions')
export class ExternalTransactionsController {
  constructor(private readonly rows: ExternalTransactionsService) {}

  @Get()
  @RequireScope('ledger:read')
  @ApiOperation({ summary: "The ledger's external transactions, newest first; from/to bound occurred_at" })
  @ApiEnveloped(ExternalTransactionResponse, { list: true })
  list(@CurrentLedger() ledger: LedgerScope, @Query() q: ListExternalTransactionsQuery) {
    const filter = {
      status: q.status,
      sourceId: q.source_id,
      currency: q.currency === undefined ? undefined : normalizeCurrency(q.currency),
      from: q.from === undefined ? undefined : new Date(q.from),
      to: q.to === undefined ? undefined : new Date(q.to),
    };
    return this.rows.list(ledger, filter, q);
  }

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiEnveloped(ExternalTransactionResponse)
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return presentExternalTransaction(await this.rows.get(ledger, id));
  }

  @Get(':id/matches')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'Every match the row has had, oldest first, reversed ones included (audit); one page' })
  @ApiEnveloped(ReconciliationMatchResponse, { list: true })
  async matches(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return new ListPage((await this.rows.matchesOf(ledger, id)).map(presentMatch));
  }

  @RowChange('ignore', 'Set an open row aside (status ignored); a matched row is 409 invalid_state')
  async ignore(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: IgnoreDto) {
    return presentExternalTransaction(await this.rows.ignore(ledger, id, body.reason ?? null));
  }

  @Post(':id/match')
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary:
      'Match an open row to postings by hand (strategy manual). Postings count signed: a debit +amount, a credit -amount; ' +
      'their sum must equal the row amount exactly, in the same currency, else 422 invalid_request with the residual in the hint. ' +
      'A row that is not open, or a posting a concurrent match took, is 409 invalid_state',
  })
  @ApiEnveloped(ReconciliationMatchResponse, { status: 201 })
  async match(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: MatchDto) {
    return presentMatch(await this.rows.match(ledger, id, body.posting_ids.map(String), body.note ?? null));
  }

  @RowChange('unmatch', 'Reverse the live match: postings unreconciled, row open again; a row that is not matched is 409 invalid_state')
  async unmatch(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: UnmatchDto) {
    return presentExternalTransaction(await this.rows.unmatch(ledger, id, body.reason ?? null));
  }
}

@LedgerApiController('sources', 'External transactions')
export class SourceExternalTransactionsController {
  constructor(
    private readonly rows: ExternalTransactionsService,
    private readonly sources: SourcesService,
  ) {}

  @Post(':id/external_transactions')
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary:
      'Ingest up to 1000 rows keyed by (source, external_id): new ones are created, known ones answered replayed and never changed, ' +
      'bad ones reported per item while the others land',
  })
  @ApiEnveloped(IngestResultResponse, { status: 201 })
  async ingest(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: IngestDto) {
    const source = await this.sources.get(ledger, id);
    return presentIngestResult(source.id, await this.rows.ingest(ledger, source, body.items));
  }
}

@LedgerApiController('postings', 'Postings')
export class PostingReconciliationsController {
  constructor(private readonly rows: ExternalTransactionsService) {}

  @Post(':id/reconciliations')
  @HttpCode(200)
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({ summary: 'Mark a posting reconciled by hand (reconciled_at, reconciliation_reference); answers the posting' })
  @ApiEnveloped(PostingResponse)
  async reconcile(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: PostingReconciliationDto) {
    const posting = await this.rows.reconcilePosting(ledger, id, { externalReference: body.external_reference, runId: body.reconciliation_run_id });
    return presentPosting(posting);
  }
}
