import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Granularity } from './dto/spending-query.dto';

export interface SpendingRow {
  /** Which grouping the row belongs to (Postgres GROUPING(): a bit per column left out of the group). */
  grouping: number;
  bucket: Date | null;
  agent_id: string | null;
  agent_name: string | null;
  rule: string | null;
  outcome: string;
  currency: string;
  count: string;
  amount_cents: string;
}

/** GROUPING(bucket, agent_id, rule) of each grouping set below. */
export const GROUPS = { totals: 0b111, timeline: 0b011, agents: 0b101, rules: 0b110 } as const;

@Injectable()
export class SpendingRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Every decision of the range added up four ways in one pass over the workspace's intents: in
   * total, per bucket, per agent and per deciding rule, each by outcome and currency.
   */
  aggregate(workspaceId: string, from: Date, to: Date, granularity: Granularity): Promise<SpendingRow[]> {
    return this.dataSource.query(
      `WITH decided AS (
         SELECT date_trunc($4, i.created_at, 'UTC') AS bucket, i.agent_id, i.decision->>'rule' AS rule,
                i.decision->>'outcome' AS outcome, i.currency, i.amount_cents
           FROM intents i
          WHERE i.workspace_id = $1 AND i.created_at >= $2 AND i.created_at < $3
       ), sums AS (
         SELECT GROUPING(bucket, agent_id, rule) AS grouping, bucket, agent_id, rule, outcome, currency,
                count(*) AS count, sum(amount_cents) AS amount_cents
           FROM decided
          GROUP BY GROUPING SETS ((outcome, currency), (bucket, outcome, currency), (agent_id, outcome, currency), (rule, outcome, currency))
       )
       SELECT s.*, a.name AS agent_name
         FROM sums s
         LEFT JOIN agents a ON a.id = s.agent_id AND a.workspace_id = $1
        ORDER BY s.grouping, s.bucket, s.count DESC, s.rule, s.agent_id, s.outcome, s.currency`,
      [workspaceId, from, to, granularity],
    ) as Promise<SpendingRow[]>;
  }
}
