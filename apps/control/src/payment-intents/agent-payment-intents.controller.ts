import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Agent } from '../agents/agent.entity';
import { AgentKeyGuard, CurrentAgent } from '../agents/agent-key.guard';
import { TraceId } from '../common/trace-id.decorator';
import { AgentIntentsController, ApiAuthorizationResponses, authorizationBody } from '../decisions/agent-intents.controller';
import { AuthorizationRequest } from '../decisions/authorization.service';
import { ApiData } from '../common/openapi-responses';
import { FRAME_HASH_DOC } from '../decisions/decision';
import { DecisionSchema } from '../decisions/intent.schema';
import { PaymentRequestDto, PaymentSimulationDto } from './dto/payment-request.dto';

/** A payment is evaluated as `payment.create` against its counterparty, sharing every cap and window with actions. */
function paymentRequest(dto: PaymentSimulationDto & Partial<PaymentRequestDto>, traceId: string): AuthorizationRequest {
  return {
    kind: 'payment',
    budget_id: dto.budget_id,
    action_type: 'payment.create',
    resource: dto.counterparty ?? null,
    amount_cents: dto.amount_cents,
    metadata: dto.metadata ?? {},
    trace_id: dto.trace_id ?? traceId,
    spend_token_id: dto.spend_token_id ?? null,
    decision_context: dto.decision_context ?? null,
  };
}

@ApiTags('agent payment intents')
@ApiBearerAuth('agent_key')
@UseGuards(AgentKeyGuard)
@Controller('control/v1/agent/payment_intents')
export class AgentPaymentIntentsController extends AgentIntentsController {
  protected readonly kind = 'payment' as const;

  @Post()
  @ApiAuthorizationResponses()
  @ApiOperation({
    summary: 'Authorize a payment (never moves money): 201 pending + cosignature, 202 held, 403 denied',
    description:
      'Idempotency is the body field idempotency_key (400 without). Settle on your rail, then call complete or fail. ' +
      'A payment that loses a race for its spend token answers 403 (rule spend_token_unusable) with the intent recorded ' +
      `failed (failure_reason spend_token_unusable) and nothing reserved. ${FRAME_HASH_DOC}`,
  })
  async authorize(@CurrentAgent() agent: Agent, @Body() dto: PaymentRequestDto, @TraceId() traceId: string, @Res({ passthrough: true }) res: Response) {
    return authorizationBody(res, await this.authorizations.authorize(agent, paymentRequest(dto, traceId), dto.idempotency_key));
  }

  @Post('simulate')
  @HttpCode(200)
  @ApiData(DecisionSchema)
  @ApiOperation({ summary: 'Evaluate a payment without recording or reserving anything; always 200 {data: decision}' })
  async simulate(@CurrentAgent() agent: Agent, @Body() dto: PaymentSimulationDto, @TraceId() traceId: string) {
    return { data: await this.authorizations.simulate(agent, paymentRequest(dto, traceId)) };
  }
}
