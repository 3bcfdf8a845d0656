import { Injectable } from '@nestjs/common';
import { retryingTransaction } from '@bursar/service-kit';
import { DataSource, EntityManager } from 'typeorm';
import type { Agent } from '../agents/agent.entity';
import { AuditService } from '../audit/audit.service';
import { notFound, unprocessable } from '../common/control-errors';
import { ListQueryDto, mapPage } from '../common/pagination';
import { spendTokenAudit } from '../spend-tokens/spend-token.presenter';
import { SpendTokensRepository } from '../spend-tokens/spend-tokens.repository';
import { remainingCents } from './budget-remaining';
import { Budget } from './budget.entity';
import { BudgetErrors } from './budget.errors';
import { BudgetsRepository } from './budgets.repository';
import { OpenBudgetDto } from './dto/open-budget.dto';

const DEFAULT_CURRENCY = 'USD';

export function presentBudget(budget: Budget) {
  return {
    id: budget.id,
    agent_id: budget.agent_id,
    parent_budget_id: budget.parent_budget_id,
    budget_cents: budget.budget_cents,
    spent_cents: budget.spent_cents,
    remaining_cents: remainingCents(budget),
    currency: budget.currency,
    status: budget.status,
    created_at: budget.created_at,
    updated_at: budget.updated_at,
  };
}

@Injectable()
export class BudgetsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly budgets: BudgetsRepository,
    private readonly tokens: SpendTokensRepository,
    private readonly audit: AuditService,
  ) {}

  /** Opens a budget for the agent; a child takes its whole amount from the parent's headroom up front. */
  async open(agent: Agent, dto: OpenBudgetDto, traceId: string): Promise<Budget> {
    const ceiling = agent.max_budget_cents;
    if (ceiling !== null && dto.budget_cents > ceiling) {
      throw BudgetErrors.error('budget_ceiling', { fields: { ceiling_cents: ceiling, requested_cents: dto.budget_cents } });
    }
    const parentId = dto.parent_budget_id ?? null;
    const parent = parentId ? await this.get(agent, parentId, 'parent budget') : null;
    const currency = dto.currency ?? parent?.currency ?? DEFAULT_CURRENCY;
    if (parent && parent.currency !== currency) {
      throw unprocessable(`A child budget takes the currency of its parent (${parent.currency})`);
    }
    return retryingTransaction(this.dataSource, async (em) => {
      const budget = await this.budgets.insert(em, agent.workspace_id, agent.id, {
        parent_budget_id: parentId,
        budget_cents: dto.budget_cents,
        currency,
      });
      await this.record(em, budget, 'session.created', traceId);
      // Claimed last: the parent's row stays locked only from here to the commit, so parallel
      // children queue on it briefly. A refused claim rolls the child and its event back.
      if (parentId && !(await this.budgets.claimFromParent(em, agent.workspace_id, agent.id, parentId, dto.budget_cents))) {
        throw await this.refusedClaim(em, agent, parentId);
      }
      return budget;
    });
  }

  async get(agent: Agent, id: string, what = 'budget', em?: EntityManager): Promise<Budget> {
    return (await this.budgets.find(agent.workspace_id, agent.id, id, em)) ?? Promise.reject(notFound(what));
  }

  async list(workspaceId: string, filter: { agent_id?: string }, page: ListQueryDto) {
    return mapPage(await this.budgets.list(workspaceId, filter, page), presentBudget);
  }

  async getInWorkspace(workspaceId: string, id: string): Promise<Budget> {
    return (await this.budgets.findInWorkspace(workspaceId, id)) ?? Promise.reject(notFound('budget'));
  }

  /**
   * Closes the budget, hands its unspent headroom back to the parent and voids its unused spend
   * tokens; closing twice changes nothing.
   */
  async close(agent: Agent, id: string, traceId: string): Promise<Budget> {
    return retryingTransaction(this.dataSource, async (em) => {
      const closed = await this.budgets.close(em, agent.workspace_id, agent.id, id);
      const budget = await this.budgets.find(agent.workspace_id, agent.id, id, em);
      if (!budget) throw notFound('budget');
      if (!closed) {
        if (budget.status === 'closed') return budget;
        throw unprocessable('Close the child budgets of this budget first');
      }
      if (budget.parent_budget_id) {
        await this.budgets.returnToParent(em, agent.workspace_id, agent.id, budget.parent_budget_id, closed.unspent);
      }
      await this.record(em, budget, 'session.closed', traceId);
      for (const token of await this.tokens.voidUnused(em, agent.workspace_id, agent.id, id)) {
        await this.audit.append(em, agent.workspace_id, spendTokenAudit(agent, token, 'spend_token.voided', traceId));
      }
      return budget;
    });
  }

  /**
   * Explains, after the conditional claim matched nothing, why: read only to word the error. Read on
   * the claim's own connection: a transaction asking the pool for a second one deadlocks the pool
   * once every pooled connection is a refused claim waiting for another (a burst of refusals did).
   */
  private async refusedClaim(em: EntityManager, agent: Agent, parentId: string): Promise<Error> {
    const parent = await this.get(agent, parentId, 'parent budget', em);
    if (parent.status === 'closed') return unprocessable('The parent budget is closed');
    return BudgetErrors.error('parent_budget_exhausted', { fields: { ceiling_cents: remainingCents(parent) } });
  }

  private record(em: EntityManager, budget: Budget, action: string, traceId: string): Promise<void> {
    return this.audit.record(em, 'Session', budget, presentBudget(budget), action, traceId);
  }
}
