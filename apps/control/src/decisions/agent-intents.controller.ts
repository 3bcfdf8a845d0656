import { applyDecorators, Body, Get, HttpCode, Injectable, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Agent } from '../agents/agent.entity';
import { CurrentAgent } from '../agents/agent-key.guard';
import { Authorization, AuthorizationService } from './authorization.service';
import { CompleteIntentDto, FailIntentDto } from './dto/outcome.dto';
import { IntentKind } from './intent.entity';
import { presentIntent } from './intent.presenter';
import { ActionIntentSchema, ApiIntentData, AUTHORIZATION_BODY, DecisionSchema, PaymentIntentSchema } from './intent.schema';
import { IntentLifecycleService } from './intent-lifecycle.service';
import { IntentsRepository } from './intents.repository';
import { notFound } from '../common/control-errors';

/** The statuses an authorization answers with, for the OpenAPI document. */
export const ApiAuthorizationResponses = () =>
  applyDecorators(
    ApiExtraModels(ActionIntentSchema, PaymentIntentSchema, DecisionSchema),
    ApiResponse({ status: 201, description: 'allowed: intent state pending; cosignature absent when cosigning is off', schema: AUTHORIZATION_BODY }),
    ApiResponse({ status: 202, description: 'requires_approval: intent state held; a person approves or denies it', schema: AUTHORIZATION_BODY }),
    ApiResponse({ status: 403, description: 'denied: intent state denied; decision carries rule, detail and remedy', schema: AUTHORIZATION_BODY }),
    ApiResponse({ status: 404, description: 'budget or spend token not this agent\'s' }),
  );

/** `{data, decision, cosignature?}` at the decision's status; the key is left out when there is none. */
export function authorizationBody(res: Response, a: Authorization) {
  res.status(a.status);
  if (a.replayed) res.setHeader('Idempotent-Replayed', 'true');
  return { data: presentIntent(a.intent), decision: a.decision, ...(a.cosignature && { cosignature: a.cosignature }) };
}

/**
 * Routes the agent's action and payment intents share: read (with the cosignature while the intent
 * is spendable), complete and fail. Subclasses bind the kind and the path.
 * (Injectable so the subclasses inherit its constructor's injection metadata.)
 */
@Injectable()
export abstract class AgentIntentsController {
  protected abstract readonly kind: IntentKind;

  constructor(
    protected readonly authorizations: AuthorizationService,
    private readonly lifecycle: IntentLifecycleService,
    private readonly intents: IntentsRepository,
  ) {}

  @Get(':id')
  @ApiOperation({ summary: 'One of your intents with its decision, and its cosignature while it is spendable' })
  @ApiResponse({ status: 200, schema: AUTHORIZATION_BODY })
  async get(@CurrentAgent() agent: Agent, @Param('id', ParseUUIDPipe) id: string) {
    const intent = await this.intents.find(this.scope(agent), id);
    if (!intent) throw notFound(`${this.kind} intent`);
    const cosignature = await this.authorizations.currentCosignature(intent);
    return { data: presentIntent(intent), decision: intent.decision, ...(cosignature && { cosignature }) };
  }

  @Post(':id/complete')
  @HttpCode(200)
  @ApiOperation({ summary: 'Record that the spend happened (pending to completed); 422 from any other state' })
  @ApiIntentData()
  async complete(@CurrentAgent() agent: Agent, @Param('id', ParseUUIDPipe) id: string, @Body() dto: CompleteIntentDto) {
    return { data: presentIntent(await this.lifecycle.complete(this.scope(agent), id, dto.ledger_transaction_id)) };
  }

  @Post(':id/fail')
  @HttpCode(200)
  @ApiOperation({ summary: 'Record that the spend did not happen, releasing its reservation; 422 once resolved' })
  @ApiIntentData()
  async fail(@CurrentAgent() agent: Agent, @Param('id', ParseUUIDPipe) id: string, @Body() dto: FailIntentDto) {
    return { data: presentIntent(await this.lifecycle.fail(this.scope(agent), id, dto.reason)) };
  }

  protected scope(agent: Agent) {
    return { workspaceId: agent.workspace_id, kind: this.kind, agentId: agent.id };
  }
}
