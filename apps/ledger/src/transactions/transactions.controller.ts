import { applyDecorators, Body, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RequireScope, RequireToken } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { PendingKey } from '../idempotency/idempotency.service';
import { REPLAYED_HEADER } from '../idempotency/idempotency.interceptor';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { IdempotencyKeyHeader, PendingIdempotency } from '../idempotency/idempotency-params.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { BulkTransactionsService } from './bulk-transactions.service';
import { CorrectionsService } from './corrections.service';
import { CorrectionDto } from './dto/correction.dto';
import { BulkTransactionsDto, CreateTransactionDto } from './dto/create-transaction.dto';
import { CreateTransactionQuery, ExpandQuery, ListTransactionsQuery, LookupQuery } from './dto/transaction-queries';
import { DryRunResponse, TransactionResponse } from './dto/transaction.response';
import { UpdateTransactionDto } from './dto/update-transaction.dto';
import { parseExpand } from './expand';
import { deleteRefused } from './transaction-errors';
import { TransactionsService, WriteResult } from './transactions.service';

const isDryRun = (req: Request) => req.body?.dry_run === true || req.query?.dry_run === 'true';

/** 201 for a new write; 200 with Idempotent-Replayed when the key named an earlier one. */
function answer(res: Response, result: WriteResult) {
  if (result.replayed) {
    res.status(200);
    res.setHeader(REPLAYED_HEADER, 'true');
  }
  return result.transaction;
}

/** A write answering 201 when new and 200 when its Idempotency-Key replays an earlier one. */
const CreatedOrReplayed = (what: string) =>
  applyDecorators(
    ApiEnveloped(TransactionResponse, { status: 201, description: `The new ${what} transaction` }),
    ApiEnveloped(TransactionResponse, {
      description: `Replay of the ${what} transaction made earlier with this Idempotency-Key`,
      headers: { [REPLAYED_HEADER]: { description: 'true on a replay', schema: { type: 'string', enum: ['true'] } } },
    }),
  );

@LedgerApiController('transactions', 'Transactions')
export class TransactionsController {
  constructor(
    private readonly transactions: TransactionsService,
    private readonly corrections: CorrectionsService,
    private readonly bulk: BulkTransactionsService,
  ) {}

  @Post()
  @RequireScope('ledger:write')
  @Idempotent({ required: (req) => !isDryRun(req), inWrite: true })
  @ApiOperation({
    summary:
      'Record a balanced transaction (422 unbalanced, currency_mismatch, unknown_account, insufficient_funds; 409 account_closed, ' +
      'period_closed, duplicate_external_ref, precondition_failed). dry_run answers 200 {object: dry_run, valid, summary}.',
  })
  @ApiEnveloped(TransactionResponse, { status: 201, description: 'The new recorded transaction' })
  @ApiExtraModels(DryRunResponse)
  @ApiResponse({
    status: 200,
    description: 'Replay of the transaction made earlier with this Idempotency-Key (with Idempotent-Replayed), or a dry run verdict',
    headers: { [REPLAYED_HEADER]: { description: 'true on a replay', schema: { type: 'string', enum: ['true'] } } },
    schema: {
      type: 'object',
      required: ['data', 'livemode', 'request_id'],
      properties: {
        data: { oneOf: [{ $ref: getSchemaPath(TransactionResponse) }, { $ref: getSchemaPath(DryRunResponse) }] },
        livemode: { type: 'boolean' },
        request_id: { type: 'string' },
      },
    },
  })
  async create(
    @CurrentLedger() ledger: LedgerScope,
    @Body() body: CreateTransactionDto,
    @Query() query: CreateTransactionQuery,
    @IdempotencyKeyHeader() key: string | null,
    @PendingIdempotency() pending: PendingKey | null,
    @Res({ passthrough: true }) res: Response,
  ) {
    const expand = parseExpand(query.expand);
    if (body.dry_run === true || query.dry_run === 'true') {
      res.status(200);
      return this.transactions.dryRun(ledger, body);
    }
    return answer(res, await this.transactions.create(ledger, body, key, expand, pending));
  }

  @Post('bulk')
  @RequireScope('ledger:write')
  @ApiOperation({ summary: 'Several transactions, each with its own idempotency_key; 201 when all succeed, 207 otherwise' })
  @ApiResponse({ status: 201, description: 'bulk_result: every item created or replayed' })
  @ApiResponse({ status: 207, description: 'bulk_result with partial_failure true: the failed items carry their error' })
  async createBulk(@CurrentLedger() ledger: LedgerScope, @Body() body: BulkTransactionsDto, @Res({ passthrough: true }) res: Response) {
    const { atomic, results } = await this.bulk.run(ledger, body);
    const partialFailure = results.some((r) => r.status === 'error');
    res.status(partialFailure ? 207 : 201);
    return { object: 'bulk_result' as const, atomic, partial_failure: partialFailure, results };
  }

  @Get()
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'List transactions, newest first' })
  @ApiEnveloped(TransactionResponse, { list: true })
  list(@CurrentLedger() ledger: LedgerScope, @Query() query: ListTransactionsQuery) {
    return this.transactions.list(ledger, query, parseExpand(query.expand));
  }

  @Get('lookup')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'The transaction carrying the external reference (rail, kind, value); 404 when none' })
  @ApiEnveloped(TransactionResponse)
  lookup(@CurrentLedger() ledger: LedgerScope, @Query() query: LookupQuery) {
    return this.transactions.lookup(ledger, { rail: query.rail, kind: query.kind, value: query.value }, parseExpand(query.expand));
  }

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiEnveloped(TransactionResponse)
  get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() query: ExpandQuery) {
    return this.transactions.get(ledger, id, parseExpand(query.expand));
  }

  @Patch(':id')
  @RequireScope('ledger:write')
  @ApiOperation({ summary: 'Change metadata only (merge by default); any other field is 409 immutable_field' })
  @ApiEnveloped(TransactionResponse)
  update(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: UpdateTransactionDto) {
    return this.transactions.update(ledger, id, body);
  }

  @Delete(':id')
  @RequireToken()
  @ApiOperation({ summary: 'Always 405: transactions are corrected with reverse or refund, never deleted' })
  @ApiResponse({
    status: 405,
    description: 'invalid_request; the hint points at POST /v1/transactions/{id}/reverse',
    schema: { $ref: '#/components/schemas/ErrorEnvelope' },
  })
  remove(@Param('id') id: string): never {
    throw deleteRefused(id);
  }

  @Post(':id/reverse')
  @RequireScope('ledger:write')
  @Idempotent({ required: true })
  @ApiOperation({
    summary:
      'Reverse the whole transaction (pending legs voided), or with amount (+ currency) refund part of it; 409 already_reversed',
  })
  @CreatedOrReplayed('reversing')
  async reverse(
    @CurrentLedger() ledger: LedgerScope,
    @Param('id') id: string,
    @Body() body: CorrectionDto,
    @Query() query: ExpandQuery,
    @IdempotencyKeyHeader() key: string | null,
    @Res({ passthrough: true }) res: Response,
  ) {
    return answer(res, await this.corrections.reverse(ledger, id, body, key, parseExpand(query.expand)));
  }

  @Post(':id/refund')
  @RequireScope('ledger:write')
  @Idempotent({ required: true })
  @ApiOperation({
    summary: 'Refund part of the gross (legs scaled, half-even); 422 refund_currency_required, partial_refund_exceeds_original',
  })
  @CreatedOrReplayed('refund')
  async refund(
    @CurrentLedger() ledger: LedgerScope,
    @Param('id') id: string,
    @Body() body: CorrectionDto,
    @Query() query: ExpandQuery,
    @IdempotencyKeyHeader() key: string | null,
    @Res({ passthrough: true }) res: Response,
  ) {
    return answer(res, await this.corrections.refund(ledger, id, body, key, parseExpand(query.expand)));
  }

  @Get(':id/refunds')
  @RequireScope('ledger:read')
  @ApiEnveloped(TransactionResponse, { list: true })
  async refunds(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() query: ExpandQuery) {
    return new ListPage(await this.corrections.refunds(ledger, id, parseExpand(query.expand)));
  }

  @Post(':id/commit')
  @HttpCode(200)
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary:
      'Post the pending legs; already posted answers unchanged; reversed is 409 invalid_state; dated inside a closed period is 409 period_closed (reverse it instead)',
  })
  @ApiEnveloped(TransactionResponse)
  commit(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() query: ExpandQuery) {
    return this.transactions.commit(ledger, id, parseExpand(query.expand));
  }
}
