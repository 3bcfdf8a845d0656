import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { parseCents } from '../common/cents.transformer';

export interface FundsTotals {
  currency: string;
  available_cents: number;
  held_cents: number;
  committed_cents: number;
}

@Injectable()
export class FundsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Per currency: unspent headroom of active budgets, holds, and money authorized or spent. */
  async totals(workspaceId: string): Promise<FundsTotals[]> {
    const rows = (await this.dataSource.query(
      `WITH b AS (
         SELECT currency, SUM(budget_cents - spent_cents - reserved_cents) AS available
           FROM budgets WHERE workspace_id = $1 AND status = 'active' GROUP BY currency),
       i AS (
         SELECT currency,
                SUM(amount_cents) FILTER (WHERE state = 'held') AS held,
                SUM(amount_cents) FILTER (WHERE state IN ('pending', 'completed', 'executed')) AS committed
           FROM intents WHERE workspace_id = $1 GROUP BY currency)
       SELECT COALESCE(b.currency, i.currency) AS currency,
              COALESCE(b.available, 0)::text AS available, COALESCE(i.held, 0)::text AS held, COALESCE(i.committed, 0)::text AS committed
         FROM b FULL JOIN i ON i.currency = b.currency
        ORDER BY 1`,
      [workspaceId],
    )) as { currency: string; available: string; held: string; committed: string }[];
    return rows.map((r) => ({
      currency: r.currency,
      available_cents: parseCents(r.available),
      held_cents: parseCents(r.held),
      committed_cents: parseCents(r.committed),
    }));
  }
}
