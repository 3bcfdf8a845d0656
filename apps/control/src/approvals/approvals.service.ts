import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Agent } from '../agents/agent.entity';
import { AgentsRepository } from '../agents/agents.repository';
import { Budget } from '../budgets/budget.entity';
import { BudgetsRepository } from '../budgets/budgets.repository';
import { remainingCents } from '../budgets/budget-remaining';
import { notFound } from '../common/control-errors';
import { Intent, IntentKind } from '../decisions/intent.entity';
import { decisionOf } from '../decisions/intent.presenter';
import { IntentsRepository } from '../decisions/intents.repository';
import { PolicyEngine } from '../policies/policy-engine.service';
import { SpendTokensRepository } from '../spend-tokens/spend-tokens.repository';
import { ApprovalsRepository } from './approvals.repository';
import { IntentQueueDto } from './dto/intent-queue.dto';

/** The workspace's view of intents: queues of holds, single intents and what approving one would do. */
@Injectable()
export class ApprovalsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly approvals: ApprovalsRepository,
    private readonly intents: IntentsRepository,
    private readonly budgets: BudgetsRepository,
    private readonly agents: AgentsRepository,
    private readonly tokens: SpendTokensRepository,
    private readonly engine: PolicyEngine,
  ) {}

  queue(workspaceId: string, kind: IntentKind, query: IntentQueueDto) {
    return this.approvals.queue(workspaceId, kind, query);
  }

  async get(workspaceId: string, kind: IntentKind, id: string): Promise<Intent> {
    return (await this.intents.find({ workspaceId, kind }, id)) ?? Promise.reject(notFound(`${kind} intent`));
  }

  /** What approving would do: the budget it draws on, what a deny returns, the windows it counts in. */
  async impact(workspaceId: string, kind: IntentKind, id: string) {
    const intent = await this.get(workspaceId, kind, id);
    const em = this.dataSource.manager;
    const [budget, agent, policies, openHolds] = await Promise.all([
      this.budgets.find(workspaceId, intent.agent_id, intent.budget_id, em) as Promise<Budget>,
      this.agents.find(workspaceId, intent.agent_id, em) as Promise<Agent>,
      this.engine.loadForAgent(em, workspaceId, intent.agent_id),
      this.approvals.openHolds(workspaceId, intent.budget_id, intent.id),
    ]);
    const windows = policies.compiled.windows;
    const usage = await this.intents.windowUsage(em, workspaceId, intent.agent_id, windows, Date.now());
    const token = intent.spend_token_id ? await this.tokens.find(workspaceId, intent.spend_token_id, intent.agent_id, em) : null;
    return {
      amount_cents: intent.amount_cents,
      currency: intent.currency,
      rule: decisionOf(intent).rule,
      executed: intent.state === 'executed' || intent.state === 'completed',
      session: {
        id: budget.id,
        budget_cents: budget.budget_cents,
        spent_cents: budget.spent_cents,
        remaining_cents: remainingCents(budget),
        returns_on_deny_cents: intent.state === 'held' ? intent.reserved_cents : 0,
        open_holds: openHolds,
      },
      agent: { id: agent.id, name: agent.name, mode: agent.mode, scopes: agent.scopes },
      windows: windows.flatMap((w, i) =>
        w.kind === 'rate'
          ? []
          : [
              {
                kind: w.kind,
                window_seconds: w.window_seconds,
                cap_cents: w.cap_cents as number,
                spent_cents: usage[i].spent_cents,
                remaining_cents: Math.max(0, (w.cap_cents as number) - usage[i].spent_cents),
              },
            ],
      ),
      ...(kind === 'payment' && {
        spend_token: token && {
          id: token.id,
          amount_ceiling_cents: token.amount_ceiling_cents,
          counterparty: token.counterparty,
          expires_at: token.expires_at,
          single_use: true,
        },
      }),
    };
  }
}
