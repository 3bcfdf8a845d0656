import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { parseCents } from '../common/cents.transformer';
import { Page } from '../common/pagination';
import { Intent, IntentKind } from '../decisions/intent.entity';
import { IntentQueueDto } from './dto/intent-queue.dto';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface QueuePage extends Page<Intent> {
  summary: { total: number; total_cents: number };
}

@Injectable()
export class ApprovalsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One page of the workspace's intents of a kind, with the summary over everything matching. */
  async queue(workspaceId: string, kind: IntentKind, q: IntentQueueDto): Promise<QueuePage> {
    const repo = this.dataSource.getRepository(Intent);
    const qb = repo.createQueryBuilder('i').where('i.workspace_id = :workspaceId AND i.kind = :kind', { workspaceId, kind });
    if (q.agent_id) qb.andWhere('i.agent_id = :agentId', { agentId: q.agent_id });
    if (q.budget_id) qb.andWhere('i.budget_id = :budgetId', { budgetId: q.budget_id });
    if (q.state) qb.andWhere('i.state = :state', { state: q.state === 'requires_approval' ? 'held' : q.state });
    if (q.action_type) qb.andWhere('i.action_type = :actionType', { actionType: q.action_type });
    if (q.min_amount_cents !== undefined) qb.andWhere('i.amount_cents >= :min', { min: q.min_amount_cents });
    if (q.held_before) qb.andWhere('i.created_at < :before', { before: q.held_before });
    if (q.agent_mode) {
      qb.andWhere('EXISTS (SELECT 1 FROM agents a WHERE a.id = i.agent_id AND a.workspace_id = i.workspace_id AND a.mode = :mode)', { mode: q.agent_mode });
    }
    const summary = (await qb.clone().select('COUNT(*)::int', 'total').addSelect('COALESCE(SUM(i.amount_cents), 0)::text', 'total_cents').getRawOne()) as {
      total: number;
      total_cents: string;
    };
    const direction = q.direction === 'asc' ? 'ASC' : 'DESC';
    const key = q.sort === 'amount' ? ['i.amount_cents', 'i.created_at', 'i.id'] : ['i.created_at', 'i.id'];
    if (q.starting_after && UUID.test(q.starting_after)) {
      const cursorCols = key.map((k) => k.replace('i.', 'c.')).join(', ');
      const cursor = `(SELECT ${cursorCols} FROM intents c WHERE c.id = :cursor AND c.workspace_id = :workspaceId AND c.kind = :kind)`;
      qb.andWhere(`(NOT EXISTS ${cursor} OR (${key.join(', ')}) ${direction === 'DESC' ? '<' : '>'} ${cursor})`, { cursor: q.starting_after });
    }
    const limit = Math.min(Math.max(q.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
    key.forEach((k, i) => (i === 0 ? qb.orderBy(k, direction) : qb.addOrderBy(k, direction)));
    const data = await qb.limit(limit).getMany();
    const hasMore = data.length === limit;
    return {
      data,
      has_more: hasMore,
      next_cursor: hasMore ? data[data.length - 1].id : null,
      summary: { total: summary.total, total_cents: parseCents(summary.total_cents) },
    };
  }

  /** Other held intents on the same budget. */
  async openHolds(workspaceId: string, budgetId: string, exceptId: string): Promise<number> {
    const [row] = (await this.dataSource.query(
      `SELECT COUNT(*)::int AS n FROM intents WHERE workspace_id = $1 AND budget_id = $2 AND state = 'held' AND id <> $3`,
      [workspaceId, budgetId, exceptId],
    )) as { n: number }[];
    return row.n;
  }
}
