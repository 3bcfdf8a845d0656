import { Module } from '@nestjs/common';
import { DecisionsModule } from '../decisions/decisions.module';
import { PoliciesModule } from '../policies/policies.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { BacktestQueue } from './backtest-queue';
import { BacktestRunner } from './backtest-runner';
import { PolicyBacktestsController } from './policy-backtests.controller';
import { PolicyBacktestsRepository } from './policy-backtests.repository';
import { PolicyBacktestsService } from './policy-backtests.service';

@Module({
  imports: [WorkspacesModule, DecisionsModule, PoliciesModule, WebhooksModule],
  controllers: [PolicyBacktestsController],
  providers: [PolicyBacktestsRepository, BacktestRunner, BacktestQueue, PolicyBacktestsService],
})
export class PolicyBacktestsModule {}
