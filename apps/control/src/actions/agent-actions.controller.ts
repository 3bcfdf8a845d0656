import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Agent } from '../agents/agent.entity';
import { AgentKeyGuard, CurrentAgent } from '../agents/agent-key.guard';
import { TraceId } from '../common/trace-id.decorator';
import { AgentIntentsController, ApiAuthorizationResponses, authorizationBody } from '../decisions/agent-intents.controller';
import { AuthorizationRequest } from '../decisions/authorization.service';
import { ApiData } from '../common/openapi-responses';
import { FRAME_HASH_DOC } from '../decisions/decision';
import { DecisionSchema } from '../decisions/intent.schema';
import { IdempotencyKey } from '../idempotency/idempotency-key.decorator';
import { ActionRequestDto } from './dto/action-request.dto';

function actionRequest(dto: ActionRequestDto, traceId: string): AuthorizationRequest {
  return {
    kind: 'action',
    budget_id: dto.budget_id,
    action_type: dto.action_type,
    resource: dto.resource ?? null,
    amount_cents: dto.cost_cents ?? 0,
    metadata: dto.metadata ?? {},
    trace_id: dto.trace_id ?? traceId,
    spend_token_id: null,
    decision_context: null,
  };
}

@ApiTags('agent actions')
@ApiBearerAuth('agent_key')
@UseGuards(AgentKeyGuard)
@Controller('control/v1/agent/actions')
export class AgentActionsController extends AgentIntentsController {
  protected readonly kind = 'action' as const;

  @Post()
  @ApiAuthorizationResponses()
  @ApiHeader({ name: 'Idempotency-Key', required: true, description: 'Missing: 422 idempotency_key_required; in flight: 409 idempotency_conflict' })
  @ApiOperation({ summary: 'Authorize an action: 201 allowed (cosigned), 202 held for approval, 403 denied; body {data, decision, cosignature?}', description: FRAME_HASH_DOC })
  async authorize(
    @CurrentAgent() agent: Agent,
    @IdempotencyKey() key: string,
    @Body() dto: ActionRequestDto,
    @TraceId() traceId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    return authorizationBody(res, await this.authorizations.authorize(agent, actionRequest(dto, traceId), key));
  }

  @Post('simulate')
  @HttpCode(200)
  @ApiData(DecisionSchema)
  @ApiOperation({ summary: 'Evaluate without recording an intent or reserving; always 200 {data: decision}' })
  async simulate(@CurrentAgent() agent: Agent, @Body() dto: ActionRequestDto, @TraceId() traceId: string) {
    return { data: await this.authorizations.simulate(agent, actionRequest(dto, traceId)) };
  }
}
