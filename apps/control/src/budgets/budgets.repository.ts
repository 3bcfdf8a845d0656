import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { parseCents } from '../common/cents.transformer';
import { ListQueryDto, Page, paginate } from '../common/pagination';
import { Budget } from './budget.entity';

/** Budgets are reached through their agent: every method takes the workspace and the agent. */
@Injectable()
export class BudgetsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    em: EntityManager,
    workspaceId: string,
    agentId: string,
    fields: Pick<Budget, 'parent_budget_id' | 'budget_cents' | 'currency'>,
  ): Promise<Budget> {
    const { id } = await em.save(
      em.create(Budget, { workspace_id: workspaceId, agent_id: agentId, spent_cents: 0, reserved_cents: 0, status: 'active', ...fields }),
    );
    return (await this.find(workspaceId, agentId, id, em)) as Budget;
  }

  find(workspaceId: string, agentId: string, id: string, em: EntityManager = this.dataSource.manager): Promise<Budget | null> {
    return em.findOneBy(Budget, { workspace_id: workspaceId, agent_id: agentId, id });
  }

  /** Any budget of the workspace, for people reading it through the workspace routes. */
  findInWorkspace(workspaceId: string, id: string): Promise<Budget | null> {
    return this.dataSource.getRepository(Budget).findOneBy({ workspace_id: workspaceId, id });
  }

  list(workspaceId: string, filter: { agent_id?: string }, page: ListQueryDto): Promise<Page<Budget>> {
    const qb = this.dataSource.getRepository(Budget).createQueryBuilder('b').where('b.workspace_id = :workspaceId', { workspaceId });
    if (filter.agent_id) qb.andWhere('b.agent_id = :agentId', { agentId: filter.agent_id });
    return paginate(qb, 'budgets', workspaceId, page);
  }

  /**
   * Takes `amount` of the parent's headroom in one conditional statement: concurrent claims queue on
   * the row and each re-checks what is left, so the parent can never hand out more than it has.
   * False when the parent is missing, closed, or has less than `amount` left.
   */
  async claimFromParent(em: EntityManager, workspaceId: string, agentId: string, parentId: string, amount: number): Promise<boolean> {
    const [rows] = (await em.query(
      `UPDATE budgets
          SET reserved_cents = reserved_cents + $4,
              status = CASE WHEN budget_cents - spent_cents - reserved_cents = $4 THEN 'exhausted' ELSE status END,
              updated_at = now()
        WHERE id = $3 AND workspace_id = $1 AND agent_id = $2
          AND status = 'active' AND budget_cents - spent_cents - reserved_cents >= $4
        RETURNING id`,
      [workspaceId, agentId, parentId, amount],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  /** Gives `amount` of lent headroom back to the parent, which is usable again. */
  async returnToParent(em: EntityManager, workspaceId: string, agentId: string, parentId: string, amount: number): Promise<void> {
    await em.query(
      `UPDATE budgets
          SET reserved_cents = reserved_cents - $4,
              status = CASE WHEN status = 'exhausted' AND $4 > 0 THEN 'active' ELSE status END,
              updated_at = now()
        WHERE id = $3 AND workspace_id = $1 AND agent_id = $2`,
      [workspaceId, agentId, parentId, amount],
    );
  }

  /**
   * Closes the budget unless it is closed already or still lends to open children, and answers
   * what it had left unspent. Null when nothing was closed.
   */
  async close(em: EntityManager, workspaceId: string, agentId: string, id: string): Promise<{ unspent: number } | null> {
    const [rows] = (await em.query(
      `UPDATE budgets b
          SET status = 'closed', updated_at = now()
        WHERE b.id = $3 AND b.workspace_id = $1 AND b.agent_id = $2 AND b.status <> 'closed'
          AND NOT EXISTS (SELECT 1 FROM budgets c WHERE c.parent_budget_id = b.id AND c.status <> 'closed')
        RETURNING (b.budget_cents - b.spent_cents - b.reserved_cents)::text AS unspent`,
      [workspaceId, agentId, id],
    )) as [{ unspent: string }[], number];
    return rows.length === 1 ? { unspent: parseCents(rows[0].unspent) } : null;
  }
}
