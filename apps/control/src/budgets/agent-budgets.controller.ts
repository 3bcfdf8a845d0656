import { Body, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { Agent } from '../agents/agent.entity';
import { AgentRoutes, CurrentAgent } from '../agents/agent-key.guard';
import { ApiData } from '../common/openapi-responses';
import { BudgetSchema } from './budget.schema';
import { TraceId } from '../common/trace-id.decorator';
import { BudgetsService, presentBudget } from './budgets.service';
import { OpenBudgetDto } from './dto/open-budget.dto';

/** The agent's own budgets, reached with its key. */
@AgentRoutes('budgets')
export class AgentBudgetsController {
  constructor(private readonly budgets: BudgetsService) {}

  @Post()
  @ApiData(BudgetSchema, 201)
  async open(@CurrentAgent() agent: Agent, @Body() dto: OpenBudgetDto, @TraceId() traceId: string) {
    return { data: presentBudget(await this.budgets.open(agent, dto, traceId)) };
  }

  @Get(':id')
  @ApiData(BudgetSchema)
  async get(@CurrentAgent() agent: Agent, @Param('id', ParseUUIDPipe) id: string) {
    return { data: presentBudget(await this.budgets.get(agent, id)) };
  }

  @Post(':id/close')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Close the budget: its unspent headroom goes back to the parent and its unused spend tokens become void. ' +
      'Closing a closed budget changes nothing; 422 while a child budget is open',
  })
  @ApiData(BudgetSchema)
  async close(@CurrentAgent() agent: Agent, @Param('id', ParseUUIDPipe) id: string, @TraceId() traceId: string) {
    return { data: presentBudget(await this.budgets.close(agent, id, traceId)) };
  }
}
