import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { parseCents } from '../common/cents.transformer';

/**
 * What intents hold of a budget, moved by single conditional statements on the budget row:
 * concurrent reservations queue on the row and each re-checks what is left, so a budget never
 * hands out more than it holds (the table's CHECK is the last line of defence).
 */
/**
 * The reserving UPDATE with its parameters named by the caller, ending in `RETURNING <left before>`
 * for the caller to alias: shared by `reserve` and the single-statement authorization write.
 */
export function reserveStatement(p: { workspace: string; agent: string; budget: string; amount: string; when?: string }): string {
  return `UPDATE budgets
             SET reserved_cents = reserved_cents + ${p.amount},
                 status = CASE WHEN budget_cents - spent_cents - reserved_cents = ${p.amount} THEN 'exhausted' ELSE status END,
                 updated_at = now()
           WHERE ${p.when ? `${p.when} AND ` : ''}id = ${p.budget} AND workspace_id = ${p.workspace} AND agent_id = ${p.agent}
             AND status = 'active' AND budget_cents - spent_cents - reserved_cents >= ${p.amount}
           RETURNING (budget_cents - spent_cents - reserved_cents + ${p.amount})`;
}

@Injectable()
export class ReservationsRepository {
  /** Reserves `amount`; answers what was left before, or null when it no longer fits or the budget is not active. */
  async reserve(em: EntityManager, workspaceId: string, agentId: string, budgetId: string, amount: number): Promise<number | null> {
    const [rows] = (await em.query(`${reserveStatement({ workspace: '$1', agent: '$2', budget: '$3', amount: '$4' })}::text AS before`, [
      workspaceId,
      agentId,
      budgetId,
      amount,
    ])) as [{ before: string }[], number];
    return rows.length ? parseCents(rows[0].before) : null;
  }

  /** Hands a reservation back (fail, deny, a lost token race); an exhausted budget is usable again. */
  async release(em: EntityManager, workspaceId: string, agentId: string, budgetId: string, amount: number): Promise<void> {
    if (amount === 0) return;
    await em.query(
      `UPDATE budgets
          SET reserved_cents = reserved_cents - $4,
              status = CASE WHEN status = 'exhausted' THEN 'active' ELSE status END,
              updated_at = now()
        WHERE id = $3 AND workspace_id = $1 AND agent_id = $2`,
      [workspaceId, agentId, budgetId, amount],
    );
  }

  /** Turns a reservation into spend; answers the budget's size and what is left after. */
  async spend(em: EntityManager, workspaceId: string, agentId: string, budgetId: string, amount: number): Promise<{ budget: number; remaining: number }> {
    const [rows] = (await em.query(
      `UPDATE budgets
          SET reserved_cents = reserved_cents - $4, spent_cents = spent_cents + $4, updated_at = now()
        WHERE id = $3 AND workspace_id = $1 AND agent_id = $2
        RETURNING budget_cents::text AS budget, (budget_cents - spent_cents - reserved_cents)::text AS remaining`,
      [workspaceId, agentId, budgetId, amount],
    )) as [{ budget: string; remaining: string }[], number];
    return { budget: parseCents(rows[0].budget), remaining: parseCents(rows[0].remaining) };
  }
}
