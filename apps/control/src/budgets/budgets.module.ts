import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AgentBudgetsController } from './agent-budgets.controller';
import { BudgetsController } from './budgets.controller';
import { BudgetsRepository } from './budgets.repository';
import { BudgetsService } from './budgets.service';

@Module({
  imports: [WorkspacesModule, AgentsModule],
  controllers: [AgentBudgetsController, BudgetsController],
  providers: [BudgetsRepository, BudgetsService],
  exports: [BudgetsRepository, BudgetsService],
})
export class BudgetsModule {}
