import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { AgentBudgetsController } from './agent-budgets.controller';
import { BudgetsRepository } from './budgets.repository';
import { BudgetsService } from './budgets.service';

@Module({
  imports: [AgentsModule],
  controllers: [AgentBudgetsController],
  providers: [BudgetsRepository, BudgetsService],
})
export class BudgetsModule {}
