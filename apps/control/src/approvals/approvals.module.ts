import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { DecisionsModule } from '../decisions/decisions.module';
import { PoliciesModule } from '../policies/policies.module';
import { SpendTokensModule } from '../spend-tokens/spend-tokens.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { ActionIntentsController } from './action-intents.controller';
import { ApprovalsRepository } from './approvals.repository';
import { ApprovalsService } from './approvals.service';
import { PaymentIntentsController } from './payment-intents.controller';

@Module({
  imports: [WorkspacesModule, DecisionsModule, BudgetsModule, SpendTokensModule, PoliciesModule],
  controllers: [ActionIntentsController, PaymentIntentsController],
  providers: [ApprovalsRepository, ApprovalsService],
})
export class ApprovalsModule {}
