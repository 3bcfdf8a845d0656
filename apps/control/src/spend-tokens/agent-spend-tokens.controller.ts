import { Body, Get, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { Agent } from '../agents/agent.entity';
import { AgentRoutes, CurrentAgent } from '../agents/agent-key.guard';
import { ApiData } from '../common/openapi-responses';
import { SpendTokenSchema } from './spend-token.schema';
import { TraceId } from '../common/trace-id.decorator';
import { MintSpendTokenDto } from './dto/mint-spend-token.dto';
import { presentSpendToken } from './spend-token.presenter';
import { SpendTokensService } from './spend-tokens.service';

/** Tokens an agent mints against its own budgets, reached with its key. */
@AgentRoutes('spend_tokens')
export class AgentSpendTokensController {
  constructor(private readonly tokens: SpendTokensService) {}

  @Post()
  @ApiData(SpendTokenSchema, 201)
  async mint(@CurrentAgent() agent: Agent, @Body() dto: MintSpendTokenDto, @TraceId() traceId: string) {
    return { data: presentSpendToken(await this.tokens.mint(agent, dto, traceId)) };
  }

  @Get(':id')
  @ApiData(SpendTokenSchema)
  async get(@CurrentAgent() agent: Agent, @Param('id', ParseUUIDPipe) id: string) {
    return { data: presentSpendToken(await this.tokens.get(agent.workspace_id, id, agent.id)) };
  }
}
