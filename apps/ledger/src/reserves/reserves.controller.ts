import { applyDecorators, Body, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { WriteRoute } from '../common/write-route.decorator';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { CreateReserveDto } from './dto/create-reserve.dto';
import { ClawReserveDto, ReleaseReserveDto } from './dto/release-reserve.dto';
import { ReserveOpResultResponse } from './dto/reserve-op-result.response';
import { ReservesService } from './reserves.service';

const Unprocessable = (codes: string) =>
  ApiResponse({ status: 422, description: codes, schema: { $ref: '#/components/schemas/ErrorEnvelope' } });

const NotAReserve = ApiResponse({
  status: 404,
  description: 'not_found: no account with this id, or a standard (not restricted) one',
  schema: { $ref: '#/components/schemas/ErrorEnvelope' },
});

/** A reserve operation's documented answers: 201 with the result, 200 on an idempotent replay. */
const ReserveOp = (summary: string, errors: string) =>
  applyDecorators(
    ApiOperation({ summary }),
    ApiEnveloped(ReserveOpResultResponse, { status: 201, description: 'The operation and the balances it left' }),
    ApiEnveloped(ReserveOpResultResponse, { description: 'Replay of the operation made earlier with this Idempotency-Key' }),
    Unprocessable(errors),
  );

/** A move of funds out of a reserve account (`:id`). */
const MoveOut = (action: string, summary: string) =>
  WriteRoute(`:id/${action}`, ReserveOp(summary, 'reserve_release_exceeds_balance, reserve_currency_mismatch, unknown_account, invalid_request'), NotAReserve);

@LedgerApiController('reserves', 'Reserves')
export class ReservesController {
  constructor(private readonly reserves: ReservesService) {}

  @Post()
  @RequireScope('ledger:write')
  @Idempotent({ required: true })
  @ReserveOp(
    'Move amount from the source account into the restricted account of (template, counterparty_ref, currency), creating it on first use',
    'reserve_insufficient_funds (source available below amount, whatever its overdraft policy), reserve_currency_mismatch, ' +
      'account_template_unknown, unknown_account, invalid_request',
  )
  create(@CurrentLedger() ledger: LedgerScope, @Body() body: CreateReserveDto) {
    return this.reserves.create(ledger, body);
  }

  @MoveOut('release', 'Move amount from the reserve account to the target account; 404 when id is not a reserve account')
  release(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: ReleaseReserveDto) {
    return this.reserves.release(ledger, id, body);
  }

  @MoveOut('claw', 'Move amount from the reserve account to an operator account, recording reason_code; 404 when id is not a reserve account')
  claw(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: ClawReserveDto) {
    return this.reserves.claw(ledger, id, body);
  }
}
