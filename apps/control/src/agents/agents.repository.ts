import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto, Page, paginate } from '../common/pagination';
import { Agent } from './agent.entity';
import { AgentKeyCache, KeyedAgent } from './agent-key-cache';

export type AgentFields = Pick<Agent, 'name' | 'status' | 'mode' | 'scopes' | 'max_budget_cents'> & {
  key_lookup: string;
  key_digest: string;
  api_key_prefix: string;
};
export type AgentPatch = Partial<Pick<Agent, 'name' | 'status' | 'scopes' | 'max_budget_cents'>>;

@Injectable()
export class AgentsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyCache: AgentKeyCache,
  ) {}

  async insert(em: EntityManager, workspaceId: string, fields: AgentFields): Promise<Agent> {
    const saved = await em.save(em.create(Agent, { workspace_id: workspaceId, ...fields }));
    return (await this.find(workspaceId, saved.id, em)) as Agent;
  }

  list(workspaceId: string, page: ListQueryDto): Promise<Page<Agent>> {
    const qb = this.dataSource.getRepository(Agent).createQueryBuilder('a').where('a.workspace_id = :workspaceId', { workspaceId });
    return paginate(qb, 'agents', workspaceId, page);
  }

  find(workspaceId: string, id: string, em: EntityManager = this.dataSource.manager): Promise<Agent | null> {
    return em.findOneBy(Agent, { workspace_id: workspaceId, id });
  }

  /** Locks the row so concurrent updates of one agent apply one after the other. */
  findForUpdate(em: EntityManager, workspaceId: string, id: string): Promise<Agent | null> {
    return em.findOne(Agent, { where: { workspace_id: workspaceId, id }, lock: { mode: 'pessimistic_write' } });
  }

  async update(em: EntityManager, workspaceId: string, id: string, patch: AgentPatch): Promise<Agent> {
    await em.update(Agent, { workspace_id: workspaceId, id }, patch);
    this.keyCache.forgetAgent(id);
    return (await this.find(workspaceId, id, em)) as Agent;
  }

  /**
   * The one unscoped read: a presented key is what establishes the workspace, so the row is found by
   * the key's leading characters and the caller compares the digest in constant time. Kept a
   * moment in AgentKeyCache.
   */
  async findByKeyLookup(keyLookup: string): Promise<KeyedAgent | null> {
    const hit = this.keyCache.get(keyLookup);
    if (hit) return hit;
    const agent = await this.dataSource
      .getRepository(Agent)
      .createQueryBuilder('a')
      .addSelect('a.key_digest')
      .where('a.key_lookup = :keyLookup', { keyLookup })
      .getOne();
    if (agent) this.keyCache.set(keyLookup, agent);
    return agent;
  }

  /** Records a key's use; at most once a minute per agent, so busy agents do not write on every call. */
  async touch(workspaceId: string, id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE agents SET last_used_at = now()
        WHERE id = $2 AND workspace_id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [workspaceId, id],
    );
  }
}
