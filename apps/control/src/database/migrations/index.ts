import { AccessLayer1763800000000 } from './1763800000000-access-layer';
import { AuditActorsAndSpendTokens1763810000000 } from './1763810000000-audit-actors-and-spend-tokens';
import { WorkspaceLifecycleAndInvitations1763811000000 } from './1763811000000-workspace-lifecycle-and-invitations';
import { Decisions1763850000000 } from './1763850000000-decisions';
import { BudgetLowNotice1763851000000 } from './1763851000000-budget-low-notice';
import { WebhookEvents1763880000000 } from './1763880000000-webhook-events';
import { WebhookEndpoints1763880000100 } from './1763880000100-webhook-endpoints';
import { Billing1763900000000 } from './1763900000000-billing';
import { CosignKeyActivation1763910000000 } from './1763910000000-cosign-key-activation';
import { DecisionRecords1763920000000 } from './1763920000000-decision-records';
import { PolicyBacktests1763930000010 } from './1763930000010-policy-backtests';
import { WebhookEndpointHeaderBrand1763940019000 } from './1763940019000-webhook-endpoint-header-brand';
import { OutboxTraceContext1763960024000 } from './1763960024000-outbox-trace-context';
import { AuditLog1763970026000 } from './1763970026000-audit-log';
import { DecisionRollups1764000000000 } from './1764000000000-decision-rollups';
import { BacktestChangesNameIntents1764100000000 } from './1764100000000-backtest-changes-name-intents';

/** Every control migration, in order. TypeORM records applied ones in `schema_migrations`. */
export const controlMigrations = [AccessLayer1763800000000, AuditActorsAndSpendTokens1763810000000, WorkspaceLifecycleAndInvitations1763811000000, Decisions1763850000000, BudgetLowNotice1763851000000, WebhookEvents1763880000000, WebhookEndpoints1763880000100, Billing1763900000000, CosignKeyActivation1763910000000, DecisionRecords1763920000000, PolicyBacktests1763930000010, WebhookEndpointHeaderBrand1763940019000, OutboxTraceContext1763960024000, AuditLog1763970026000, DecisionRollups1764000000000, BacktestChangesNameIntents1764100000000];
