import type { Logger } from 'pino';
import { DataSourceOptions } from 'typeorm';
import { typeOrmOptions } from '@bursar/service-kit';
import { Agent } from '../agents/agent.entity';
import { AuditEvent } from '../audit/audit-event.entity';
import { BillingAccount } from '../billing/billing-account.entity';
import { BillingCheckout } from '../billing/billing-checkout.entity';
import { BillingEvent } from '../billing/billing-event.entity';
import { Budget } from '../budgets/budget.entity';
import { Intent } from '../decisions/intent.entity';
import { Policy } from '../policies/policy.entity';
import { PolicyModule } from '../policy-modules/policy-module.entity';
import { SpendToken } from '../spend-tokens/spend-token.entity';
import { WorkspaceInvitation } from '../invitations/invitation.entity';
import { WorkspaceMembership } from '../workspaces/membership.entity';
import { Workspace } from '../workspaces/workspace.entity';
import { controlMigrations } from './migrations';

/**
 * Claims on one budget queue on its row until each commit is durable, so under a burst a request
 * may wait for a pooled connection longer than the kit's fail-fast default; it should wait, not fail.
 */
const CONNECTION_WAIT_MS = 15_000;

export function controlDataSourceOptions(url: string, logger?: Logger): DataSourceOptions {
  const options = typeOrmOptions({
    url,
    logger,
    applicationName: 'bursar-control',
    entities: [Workspace, WorkspaceMembership, Agent, Budget, AuditEvent, SpendToken, WorkspaceInvitation, Policy, PolicyModule, Intent, BillingAccount, BillingCheckout, BillingEvent],
    migrations: controlMigrations,
  });
  return { ...options, extra: { ...options.extra, connectionTimeoutMillis: CONNECTION_WAIT_MS } } as DataSourceOptions;
}
