import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { parseCents } from '../common/cents.transformer';
import { ListQueryDto, Page, paginate } from '../common/pagination';
import { Policy } from './policy.entity';
import type { PolicyRule } from './policy-rules';
import type { PolicyBody } from './policy-snapshot';

export type PolicyFields = Omit<Policy, 'id' | 'workspace_id' | 'agent_id' | 'version' | 'created_at' | 'updated_at'>;

/** An active policy with the rules of the modules it imports, as read in one statement. */
export interface ActivePolicyRow extends PolicyBody {
  modules: { name: string; rules: PolicyRule[] }[];
}

interface RawPolicyRow {
  id: string;
  mode: 'blocklist' | 'allowlist';
  per_transaction_cap_cents: string | null;
  velocity_cap_cents: string | null;
  velocity_window_seconds: number | null;
  monthly_cap_cents: string | null;
  approval_threshold_cents: string | null;
  counterparty_allowlist: string[];
  imports: string[];
  rules: PolicyRule[];
  modules: { name: string; rules: PolicyRule[] }[];
}

const cents = (v: string | null) => (v === null ? null : parseCents(v));

/**
 * An SQL expression (a scalar subquery) giving the agent's active policies as JSON text, oldest
 * first, each with its imported modules' current rules. Text, so a decision can key its compiled
 * closures on it before parsing anything, and embed it in a wider read.
 */
export function activePoliciesJson(workspaceParam: string, agentParam: string): string {
  return `(SELECT COALESCE(json_agg(json_build_object(
              'id', p.id, 'mode', p.mode, 'per_transaction_cap_cents', p.per_transaction_cap_cents::text,
              'velocity_cap_cents', p.velocity_cap_cents::text, 'velocity_window_seconds', p.velocity_window_seconds,
              'monthly_cap_cents', p.monthly_cap_cents::text, 'approval_threshold_cents', p.approval_threshold_cents::text,
              'counterparty_allowlist', p.counterparty_allowlist, 'imports', p.imports, 'rules', p.rules,
              'modules', COALESCE((SELECT json_agg(json_build_object('name', m.name, 'rules', m.rules))
                                     FROM policy_modules m WHERE m.workspace_id = p.workspace_id AND m.name = ANY (p.imports)), '[]'))
            ORDER BY p.created_at, p.id), '[]')::text
       FROM policies p WHERE p.workspace_id = ${workspaceParam} AND p.agent_id = ${agentParam} AND p.status = 'active')`;
}

export function parseActivePolicies(json: string): ActivePolicyRow[] {
  return (JSON.parse(json) as RawPolicyRow[]).map((r) => ({
    ...r,
    per_transaction_cap_cents: cents(r.per_transaction_cap_cents),
    velocity_cap_cents: cents(r.velocity_cap_cents),
    monthly_cap_cents: cents(r.monthly_cap_cents),
    approval_threshold_cents: cents(r.approval_threshold_cents),
  }));
}

@Injectable()
export class PoliciesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(em: EntityManager, workspaceId: string, agentId: string, fields: PolicyFields): Promise<Policy> {
    const { id } = await em.save(em.create(Policy, { workspace_id: workspaceId, agent_id: agentId, version: 1, ...fields }));
    return (await this.find(workspaceId, id, em)) as Policy;
  }

  find(workspaceId: string, id: string, em: EntityManager = this.dataSource.manager): Promise<Policy | null> {
    return em.findOneBy(Policy, { workspace_id: workspaceId, id });
  }

  findForUpdate(em: EntityManager, workspaceId: string, id: string): Promise<Policy | null> {
    return em.findOne(Policy, { where: { workspace_id: workspaceId, id }, lock: { mode: 'pessimistic_write' } });
  }

  async update(em: EntityManager, workspaceId: string, id: string, fields: Partial<PolicyFields>): Promise<Policy> {
    await em
      .createQueryBuilder()
      .update(Policy)
      // TypeORM's deep-partial type cannot follow the recursive Condition union inside `rules` (a jsonb column written whole).
      .set({ ...fields, version: () => 'version + 1' } as QueryDeepPartialEntity<Policy>)
      .where('workspace_id = :workspaceId AND id = :id', { workspaceId, id })
      .execute();
    return (await this.find(workspaceId, id, em)) as Policy;
  }

  list(workspaceId: string, agentId: string | undefined, page: ListQueryDto): Promise<Page<Policy>> {
    const qb = this.dataSource.getRepository(Policy).createQueryBuilder('p').where('p.workspace_id = :workspaceId', { workspaceId });
    if (agentId) qb.andWhere('p.agent_id = :agentId', { agentId });
    return paginate(qb, 'policies', workspaceId, page);
  }

  /** The agent's active policies, oldest first, each with its imported modules' current rules, as `activePoliciesJson` gives them. */
  async activeJson(em: EntityManager, workspaceId: string, agentId: string): Promise<string> {
    const [row] = (await em.query(`SELECT ${activePoliciesJson('$1', '$2')} AS policies`, [workspaceId, agentId])) as { policies: string }[];
    return row.policies;
  }
}
