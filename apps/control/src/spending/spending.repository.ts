import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Granularity } from './dto/spending-query.dto';
import { segmentsOf } from './spending-segments';

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
   * Every decision of [from, to) added up four ways: in total, per bucket, per agent and per
   * deciding rule, each by outcome and currency. Whole days and hours come from the rollups, the
   * partial hours at the edges from the intents (see segmentsOf).
   */
  aggregate(workspaceId: string, from: Date, to: Date, granularity: Granularity): Promise<SpendingRow[]> {
    const { hourFrom, dayFrom, dayTo, hourTo } = segmentsOf(from, to, granularity);
    return this.dataSource.query(
      `WITH decided AS (
         SELECT r.bucket AS at, r.agent_id, nullif(r.rule, '') AS rule, r.outcome, r.currency, r.decisions, r.amount_cents
           FROM decision_rollups r
          WHERE r.workspace_id = $1 AND r.span = 'day' AND r.bucket >= $6 AND r.bucket < $7
         UNION ALL
         SELECT r.bucket, r.agent_id, nullif(r.rule, ''), r.outcome, r.currency, r.decisions, r.amount_cents
           FROM decision_rollups r
          WHERE r.workspace_id = $1 AND r.span = 'hour' AND ((r.bucket >= $4 AND r.bucket < $6) OR (r.bucket >= $7 AND r.bucket < $5))
         UNION ALL
         SELECT i.created_at, i.agent_id, i.decision->>'rule', i.decision->>'outcome', i.currency, 1, i.amount_cents
           FROM intents i
          WHERE i.workspace_id = $1 AND i.created_at >= $2 AND i.created_at < $4
         UNION ALL
         SELECT i.created_at, i.agent_id, i.decision->>'rule', i.decision->>'outcome', i.currency, 1, i.amount_cents
           FROM intents i
          WHERE i.workspace_id = $1 AND i.created_at >= $5 AND i.created_at < $3
       ), sums AS (
         SELECT GROUPING(bucket, agent_id, rule) AS grouping, bucket, agent_id, rule, outcome, currency,
                sum(decisions) AS count, sum(amount_cents) AS amount_cents
           FROM (SELECT date_trunc($8, at, 'UTC') AS bucket, agent_id, rule, outcome, currency, decisions, amount_cents FROM decided) d
          GROUP BY GROUPING SETS ((outcome, currency), (bucket, outcome, currency), (agent_id, outcome, currency), (rule, outcome, currency))
       )
       SELECT s.*, a.name AS agent_name
         FROM sums s
         LEFT JOIN agents a ON a.id = s.agent_id AND a.workspace_id = $1
        ORDER BY s.grouping, s.bucket, s.count DESC, s.rule, s.agent_id, s.outcome, s.currency`,
      [workspaceId, from, to, hourFrom, hourTo, dayFrom, dayTo, granularity],
    ) as Promise<SpendingRow[]>;
  }
}
