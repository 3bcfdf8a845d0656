import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Granularity } from './dto/spending-query.dto';
import { segmentsOf } from './spending-segments';

export interface SpendingRow {
  /** Which figure the row is. */
  grouping: 'totals' | 'timeline' | 'agents' | 'rules';
  bucket: Date | null;
  agent_id: string | null;
  agent_name: string | null;
  rule: string | null;
  outcome: string;
  currency: string;
  count: string;
  amount_cents: string;
}

@Injectable()
export class SpendingRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Every decision of [from, to) added up four ways, each by outcome and currency: in total, per
   * agent and per deciding rule from the coarsest rows that cover the range (days), and per bucket
   * from rows of the timeline's granularity (decisions_between, segmentsOf); the rollups up to
   * folded_to, the intents after it. One snapshot reads both, so a fold committing meanwhile is
   * seen whole or not at all.
   */
  aggregate(workspaceId: string, from: Date, to: Date, granularity: Granularity): Promise<SpendingRow[]> {
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      await m.query('SET TRANSACTION READ ONLY');
      // Never folded is -infinity, which Date cannot hold; anything before from reads the same.
      const [{ folded_to }] = (await m.query(`SELECT greatest(folded_to, $1::timestamptz) AS folded_to FROM decision_rollups_folded`, [from])) as { folded_to: Date }[];
      const bounds = (g: Granularity) => {
        const s = segmentsOf(from, to, g, folded_to);
        return [s.hourFrom, s.hourTo, s.dayFrom, s.dayTo];
      };
      return (await m.query(
        `WITH coarse AS (SELECT * FROM decisions_between($1, $2, $3, $4, $5, $6, $7)),
              -- A day timeline reads the same rows as the other figures; an hour timeline reads its own.
              fine AS (SELECT * FROM coarse WHERE $12 = 'day' UNION ALL SELECT * FROM decisions_between($1, $2, $3, $8, $9, $10, $11) WHERE $12 = 'hour'),
              sums AS (
                SELECT CASE GROUPING(agent_id, rule) WHEN 3 THEN 'totals' WHEN 1 THEN 'agents' ELSE 'rules' END AS grouping,
                       NULL::timestamptz AS bucket, agent_id, rule, outcome, currency, sum(decisions) AS count, sum(amount_cents) AS amount_cents
                  FROM coarse
                 GROUP BY GROUPING SETS ((outcome, currency), (agent_id, outcome, currency), (rule, outcome, currency))
                UNION ALL
                SELECT 'timeline', date_trunc($12, at, 'UTC'), NULL, NULL, outcome, currency, sum(decisions), sum(amount_cents)
                  FROM fine
                 GROUP BY 2, outcome, currency
              )
         SELECT s.*, a.name AS agent_name
           FROM sums s
           LEFT JOIN agents a ON a.id = s.agent_id AND a.workspace_id = $1
          ORDER BY s.grouping, s.bucket, s.count DESC, s.rule, s.agent_id, s.outcome, s.currency`,
        [workspaceId, from, to, ...bounds('day'), ...bounds(granularity), granularity],
      )) as SpendingRow[];
    });
  }

  /**
   * Folds the decisions of the whole hours that can no longer change into the rollups
   * (fold_decision_rollups); returns the new folded_to, null while nothing could be folded yet.
   */
  async fold(): Promise<Date | null> {
    const [{ folded_to }] = (await this.dataSource.query(`SELECT nullif(fold_decision_rollups(), '-infinity') AS folded_to`)) as { folded_to: Date | null }[];
    return folded_to;
  }
}
