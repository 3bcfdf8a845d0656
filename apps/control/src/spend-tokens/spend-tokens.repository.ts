import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { ListQueryDto, Page, paginate } from '../common/pagination';
import { SpendToken } from './spend-token.entity';

export type SpendTokenFields = Pick<SpendToken, 'budget_id' | 'amount_ceiling_cents' | 'counterparty' | 'expires_at'>;

@Injectable()
export class SpendTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(em: EntityManager, workspaceId: string, agentId: string, fields: SpendTokenFields): Promise<SpendToken> {
    const { id } = await em.save(em.create(SpendToken, { workspace_id: workspaceId, agent_id: agentId, status: 'issued', ...fields }));
    return (await em.findOneBy(SpendToken, { workspace_id: workspaceId, id })) as SpendToken;
  }

  /** A token of the workspace, optionally only if `agentId` minted it. */
  find(workspaceId: string, id: string, agentId?: string, em: EntityManager = this.dataSource.manager): Promise<SpendToken | null> {
    return em.findOneBy(SpendToken, { workspace_id: workspaceId, id, ...(agentId && { agent_id: agentId }) });
  }

  list(workspaceId: string, filter: { budget_id?: string; agent_id?: string }, page: ListQueryDto): Promise<Page<SpendToken>> {
    const qb = this.dataSource.getRepository(SpendToken).createQueryBuilder('t').where('t.workspace_id = :workspaceId', { workspaceId });
    if (filter.budget_id) qb.andWhere('t.budget_id = :budgetId', { budgetId: filter.budget_id });
    if (filter.agent_id) qb.andWhere('t.agent_id = :agentId', { agentId: filter.agent_id });
    return paginate(qb, 'spend_tokens', workspaceId, page);
  }

  /**
   * Marks up to `batch` issued tokens past their expiry as expired, in every workspace: a system
   * sweep, hence no workspace argument. SKIP LOCKED lets replicas sweep side by side, each row once.
   */
  async expireDue(em: EntityManager, batch: number): Promise<SpendToken[]> {
    const [rows] = (await em.query(
      `WITH due AS (
         SELECT id FROM spend_tokens WHERE status = 'issued' AND expires_at <= now()
          ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE spend_tokens t SET status = 'expired', updated_at = now() FROM due WHERE t.id = due.id RETURNING t.id`,
      [batch],
    )) as [{ id: string }[], number];
    return rows.length ? em.findBy(SpendToken, { id: In(rows.map((r) => r.id)) }) : [];
  }

  /**
   * Voids the unused, unexpired tokens of a budget that just closed, inside the closing
   * transaction: they could never pay again. Expired ones are left for the expiry sweep.
   */
  async voidUnused(em: EntityManager, workspaceId: string, agentId: string, budgetId: string): Promise<SpendToken[]> {
    const [rows] = (await em.query(
      `UPDATE spend_tokens SET status = 'void', updated_at = now()
        WHERE workspace_id = $1 AND agent_id = $2 AND budget_id = $3
          AND status = 'issued' AND (expires_at IS NULL OR expires_at > now())
        RETURNING id`,
      [workspaceId, agentId, budgetId],
    )) as [{ id: string }[], number];
    return rows.length ? em.findBy(SpendToken, { workspace_id: workspaceId, id: In(rows.map((r) => r.id)) }) : [];
  }

  /**
   * Spends the token for a payment in one conditional statement: of concurrent payments citing it,
   * exactly one sees it still `issued` and unexpired and wins; the rest get null. The ceiling and
   * payee never change after minting, so the caller checks those on a plain read beforehand.
   */
  async consume(em: EntityManager, workspaceId: string, agentId: string, id: string): Promise<SpendToken | null> {
    const [rows] = (await em.query(
      `UPDATE spend_tokens
          SET status = 'consumed', consumed_at = now(), updated_at = now()
        WHERE id = $3 AND workspace_id = $1 AND agent_id = $2
          AND status = 'issued' AND (expires_at IS NULL OR expires_at > now())
        RETURNING id`,
      [workspaceId, agentId, id],
    )) as [unknown[], number];
    return rows.length === 1 ? this.find(workspaceId, id, agentId, em) : null;
  }
}
