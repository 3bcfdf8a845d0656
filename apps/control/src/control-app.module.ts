import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { ServiceKitModule } from '@bursar/service-kit';
import { ActionsModule } from './actions/actions.module';
import { AgentsModule } from './agents/agents.module';
import { ApprovalsModule } from './approvals/approvals.module';
import { STARTER_POLICY_WRITER } from './agents/starter-policy';
import { AuditModule } from './audit/audit.module';
import { AuditLogModule } from './audit-log/audit-log.module';
import { BillingModule } from './billing/billing.module';
import { RateLimitModule } from './common/rate-limit.module';
import { BudgetsModule } from './budgets/budgets.module';
import { ControlSettings } from './config/control.settings';
import { CosignModule } from './cosign/cosign.module';
import { controlDataSourceOptions } from './database/control-database';
import { FundsModule } from './funds/funds.module';
import { InvitationsModule } from './invitations/invitations.module';
import { MembershipsModule } from './memberships/memberships.module';
import { PaymentIntentsModule } from './payment-intents/payment-intents.module';
import { PoliciesModule } from './policies/policies.module';
import { PoliciesService } from './policies/policies.service';
import { PolicyModulesModule } from './policy-modules/policy-modules.module';
import { PolicyBacktestsModule } from './policy-backtests/policy-backtests.module';
import { PolicyPreviewsModule } from './policy-previews/policy-previews.module';
import { PolicyVersionsModule } from './policy-versions/policy-versions.module';
import { SpendTokensModule } from './spend-tokens/spend-tokens.module';
import { SpendingModule } from './spending/spending.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

@Module({})
export class ControlAppModule {
  static forRoot(settings: ControlSettings, logger: Logger): DynamicModule {
    return {
      module: ControlAppModule,
      // Settings are read by feature modules' providers (the identity verifier, say).
      global: true,
      imports: [
        ServiceKitModule.forRoot({ serviceName: 'control', logger, redisUrl: settings.REDIS_URL }),
        TypeOrmModule.forRoot({ ...controlDataSourceOptions(settings.CONTROL_DATABASE_URL, logger), retryAttempts: 0 }),
        // Express tries routes in the order they were registered, one pattern match each, so the
        // busiest (authorizations, simulations, cosignature checks) go first. No other module's
        // route shares their paths.
        ActionsModule,
        PaymentIntentsModule,
        CosignModule,
        RateLimitModule,
        AuditModule,
        AuditLogModule,
        WebhooksModule,
        WorkspacesModule,
        AgentsModule,
        BudgetsModule,
        SpendTokensModule,
        MembershipsModule,
        InvitationsModule,
        PolicyModulesModule,
        PoliciesModule,
        ApprovalsModule,
        FundsModule,
        PolicyPreviewsModule,
        PolicyBacktestsModule,
        PolicyVersionsModule,
        SpendingModule,
        BillingModule,
      ],
      providers: [
        { provide: ControlSettings, useValue: settings },
        // Agents create their starter policy through this, without importing the policies module.
        { provide: STARTER_POLICY_WRITER, useExisting: PoliciesService },
      ],
      exports: [ControlSettings, STARTER_POLICY_WRITER],
    };
  }
}
