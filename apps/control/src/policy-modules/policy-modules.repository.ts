import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { Page } from '../common/pagination';
import type { PolicyRule } from '../policies/policy-rules';
import { PolicyModule } from './policy-module.entity';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

@Injectable()
export class PolicyModulesRepository {
  constructor(private readonly dataSource: DataSource) {}

  insert(em: EntityManager, workspaceId: string, fields: Pick<PolicyModule, 'name' | 'description' | 'rules'>): Promise<PolicyModule> {
    return em.save(em.create(PolicyModule, { workspace_id: workspaceId, ...fields }));
  }

  find(workspaceId: string, name: string, em: EntityManager = this.dataSource.manager): Promise<PolicyModule | null> {
    return em.findOneBy(PolicyModule, { workspace_id: workspaceId, name });
  }

  /** Locks the modules a policy write imports (shared) or a module write changes (exclusive). */
  lockByNames(em: EntityManager, workspaceId: string, names: string[], mode: 'pessimistic_read' | 'pessimistic_write'): Promise<PolicyModule[]> {
    if (!names.length) return Promise.resolve([]);
    return em.find(PolicyModule, { where: { workspace_id: workspaceId, name: In(names) }, lock: { mode } });
  }

  /** Modules sorted by name; the cursor is a module name, as the reference pages them. */
  async list(workspaceId: string, query: { limit?: number; starting_after?: string }): Promise<Page<PolicyModule>> {
    const limit = Math.min(Math.max(query.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
    const qb = this.dataSource
      .getRepository(PolicyModule)
      .createQueryBuilder('m')
      .where('m.workspace_id = :workspaceId', { workspaceId });
    if (query.starting_after) {
      qb.andWhere(
        `(NOT EXISTS (SELECT 1 FROM policy_modules c WHERE c.workspace_id = :workspaceId AND c.name = :after) OR m.name > :after)`,
        { after: query.starting_after },
      );
    }
    const data = await qb.orderBy('m.name', 'ASC').limit(limit).getMany();
    const hasMore = data.length === limit;
    return { data, has_more: hasMore, next_cursor: hasMore ? data[data.length - 1].name : null };
  }

  async update(em: EntityManager, workspaceId: string, id: string, patch: { description?: string | null; rules?: PolicyRule[] }): Promise<PolicyModule> {
    // jsonb rules go through the query builder's deep-partial type as a plain value.
    await em.update(PolicyModule, { workspace_id: workspaceId, id }, patch as object);
    return (await em.findOneBy(PolicyModule, { workspace_id: workspaceId, id })) as PolicyModule;
  }

  async delete(em: EntityManager, workspaceId: string, id: string): Promise<void> {
    await em.delete(PolicyModule, { workspace_id: workspaceId, id });
  }

  /** Whether any policy of the workspace still imports the module. */
  async isImported(em: EntityManager, workspaceId: string, name: string): Promise<boolean> {
    const rows = (await em.query(`SELECT 1 FROM policies WHERE workspace_id = $1 AND $2 = ANY (imports) LIMIT 1`, [workspaceId, name])) as unknown[];
    return rows.length > 0;
  }
}
