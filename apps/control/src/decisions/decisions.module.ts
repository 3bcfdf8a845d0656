import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { BudgetsModule } from '../budgets/budgets.module';
import { CosignModule } from '../cosign/cosign.module';
import { PoliciesModule } from '../policies/policies.module';
import { PolicyVersionsModule } from '../policy-versions/policy-versions.module';
import { SpendTokensModule } from '../spend-tokens/spend-tokens.module';
import { AuthorizationRepository } from './authorization.repository';
import { AuthorizationService } from './authorization.service';
import { DecisionReplayService } from './decision-replay.service';
import { IntentLifecycleService } from './intent-lifecycle.service';
import { IntentsRepository } from './intents.repository';
import { ReservationsRepository } from './reservations.repository';

/** The authorization core the agent routes (actions, payments) and the approval routes share. */
@Module({
  imports: [AgentsModule, BudgetsModule, SpendTokensModule, PoliciesModule, CosignModule, PolicyVersionsModule],
  providers: [IntentsRepository, ReservationsRepository, AuthorizationRepository, AuthorizationService, IntentLifecycleService, DecisionReplayService],
  exports: [AgentsModule, IntentsRepository, ReservationsRepository, AuthorizationService, IntentLifecycleService, DecisionReplayService],
})
export class DecisionsModule {}
