import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { SpendTokensRepository } from '../spend-tokens/spend-tokens.repository';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AgentBudgetsController } from './agent-budgets.controller';
import { BudgetsController } from './budgets.controller';
import { BudgetsRepository } from './budgets.repository';
import { BudgetsService } from './budgets.service';

@Module({
  imports: [WorkspacesModule, AgentsModule],
  controllers: [AgentBudgetsController, BudgetsController],
  // SpendTokensRepository is stateless; providing it here spares a module cycle (tokens need budgets).
  providers: [BudgetsRepository, BudgetsService, SpendTokensRepository],
  exports: [BudgetsRepository, BudgetsService],
})
export class BudgetsModule {}
