import { Injectable } from '@nestjs/common';
import { unprocessable } from '../common/control-errors';
import type { Granularity, SpendingQueryDto } from './dto/spending-query.dto';
import { SpendingRepository, SpendingRow } from './spending.repository';
import type { SpendingSchema } from './spending.schema';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;
/** Longest range per granularity: a year of days, a month of hours. */
const MAX_DAYS: Record<Granularity, number> = { day: 366, hour: 31 };

const figure = (r: SpendingRow) => ({ outcome: r.outcome, currency: r.currency, count: Number(r.count), amount_cents: Number(r.amount_cents) });

@Injectable()
export class SpendingService {
  constructor(private readonly spending: SpendingRepository) {}

  /** The workspace's decisions in [from, to) added up by outcome: in total, over time, per agent and per rule. */
  async summarize(workspaceId: string, query: SpendingQueryDto): Promise<SpendingSchema> {
    const granularity = query.granularity ?? 'day';
    const to = query.to ? new Date(query.to) : new Date();
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_DAYS * DAY_MS);
    if (from >= to) throw unprocessable('from must be before to', 'from');
    if (to.getTime() - from.getTime() > MAX_DAYS[granularity] * DAY_MS) {
      throw unprocessable(`A ${granularity} timeline covers at most ${MAX_DAYS[granularity]} days`, query.from ? 'from' : 'granularity');
    }
    const rows = await this.spending.aggregate(workspaceId, from, to, granularity);
    const of = (group: SpendingRow['grouping']) => rows.filter((r) => r.grouping === group);
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      granularity,
      totals: of('totals').map(figure),
      timeline: of('timeline').map((r) => ({ bucket: (r.bucket as Date).toISOString(), ...figure(r) })),
      agents: of('agents').map((r) => ({ agent_id: r.agent_id as string, agent_name: r.agent_name, ...figure(r) })),
      // Allowed decisions name no rule; only the rules that denied or held are listed.
      rules: of('rules').flatMap((r) => (r.rule === null ? [] : [{ rule: r.rule, ...figure(r) }])),
    };
  }
}
