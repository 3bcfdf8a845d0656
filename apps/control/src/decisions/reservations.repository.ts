import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { parseCents } from '../common/cents.transformer';
import type { BudgetCounters } from './decision-inputs';

/**
 * What intents hold of a budget, moved by single conditional statements on the budget row:
 * concurrent reservations queue on the row and each re-checks what is left, so a budget never
 * hands out more than it holds (the table's CHECK is the last line of defence).
 */
/**
 * The reserving UPDATE (budgets as `b`) with its values named by the caller, ending in
 * `RETURNING <left before>` for the caller to alias: shared by `reserve` and the batched
 * authorization write, which adds `from` (each budget's total of the reservations that fit).
 */
export function reserveStatement(p: { workspace: string; agent: string; budget: string; amount: string; from?: string }): string {
  return `UPDATE budgets b
             SET reserved_cents = b.reserved_cents + ${p.amount},
                 status = CASE WHEN b.budget_cents - b.spent_cents - b.reserved_cents = ${p.amount} THEN 'exhausted' ELSE b.status END,
                 updated_at = now()
           ${p.from ? `FROM ${p.from}` : ''}
           WHERE b.id = ${p.budget} AND b.workspace_id = ${p.workspace} AND b.agent_id = ${p.agent}
             AND b.status = 'active' AND b.budget_cents - b.spent_cents - b.reserved_cents >= ${p.amount}
           RETURNING (b.budget_cents - b.spent_cents - b.reserved_cents + ${p.amount})`;
}

@Injectable()
export class ReservationsRepository {
  /**
   * Reserves `amount`; answers what was left before, or, when it no longer fits or the budget is not
   * active, the budget as it is now (what the refusal reports).
   */
  async reserve(em: EntityManager, workspaceId: string, agentId: string, budgetId: string, amount: number): Promise<{ before: number } | { refused: BudgetCounters }> {
    const params = [workspaceId, agentId, budgetId];
    const [rows] = (await em.query(`${reserveStatement({ workspace: '$1', agent: '$2', budget: '$3', amount: '$4' })}::text AS before`, [...params, amount])) as [
      { before: string }[],
      number,
    ];
    if (rows.length) return { before: parseCents(rows[0].before) };
    const [budget] = (await em.query(
      `SELECT status, budget_cents::text, spent_cents::text, reserved_cents::text FROM budgets WHERE workspace_id = $1 AND agent_id = $2 AND id = $3`,
      params,
    )) as (Pick<BudgetCounters, 'status'> & Record<'budget_cents' | 'spent_cents' | 'reserved_cents', string>)[];
    return {
      refused: { status: budget.status, budget_cents: parseCents(budget.budget_cents), spent_cents: parseCents(budget.spent_cents), reserved_cents: parseCents(budget.reserved_cents) },
    };
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

  /**
   * Turns a reservation into spend; answers the budget's size, what is left after, and `lowNotice`:
   * true for the one spend (ever, per budget) with `notifyLowAt` set that leaves that share of the
   * budget or less, which the row then records so no later spend repeats it.
   */
  async spend(
    em: EntityManager,
    workspaceId: string,
    agentId: string,
    budgetId: string,
    amount: number,
    notifyLowAt: number | null,
  ): Promise<{ budget: number; remaining: number; lowNotice: boolean }> {
    const rows = (await em.query(
      `UPDATE budgets b
          SET reserved_cents = b.reserved_cents - $4, spent_cents = b.spent_cents + $4, updated_at = now(),
              low_notified_at = CASE WHEN $5::numeric IS NOT NULL AND b.low_notified_at IS NULL
                                      AND (b.budget_cents - b.spent_cents - b.reserved_cents)::numeric <= b.budget_cents * $5::numeric
                                     THEN now() ELSE b.low_notified_at END
         FROM (SELECT low_notified_at FROM budgets WHERE id = $3 AND workspace_id = $1 AND agent_id = $2 FOR UPDATE) AS before
        WHERE b.id = $3 AND b.workspace_id = $1 AND b.agent_id = $2
        RETURNING b.budget_cents::text AS budget, (b.budget_cents - b.spent_cents - b.reserved_cents)::text AS remaining,
                  before.low_notified_at IS NULL AND b.low_notified_at IS NOT NULL AS low_notice`,
      [workspaceId, agentId, budgetId, amount, notifyLowAt],
    )) as [{ budget: string; remaining: string; low_notice: boolean }[], number];
    const [row] = rows[0];
    return { budget: parseCents(row.budget), remaining: parseCents(row.remaining), lowNotice: row.low_notice };
  }
}
