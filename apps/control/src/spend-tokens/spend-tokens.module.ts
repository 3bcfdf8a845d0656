import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { BudgetsModule } from '../budgets/budgets.module';
import { AgentSpendTokensController } from './agent-spend-tokens.controller';
import { SpendTokenExpiryService } from './spend-token-expiry.service';
import { SpendTokensController } from './spend-tokens.controller';
import { SpendTokensRepository } from './spend-tokens.repository';
import { SpendTokensService } from './spend-tokens.service';

/** Exports the repository so payment evaluation can consume a token inside its own transaction. */
@Module({
  imports: [WorkspacesModule, AgentsModule, BudgetsModule],
  controllers: [AgentSpendTokensController, SpendTokensController],
  providers: [SpendTokensRepository, SpendTokensService, SpendTokenExpiryService],
  exports: [SpendTokensRepository, SpendTokensService],
})
export class SpendTokensModule {}
