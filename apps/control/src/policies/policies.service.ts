import { Injectable } from '@nestjs/common';
import { retryingTransaction } from '@bursar/service-kit';
import { DataSource, EntityManager } from 'typeorm';
import { AgentsRepository } from '../agents/agents.repository';
import { AuditService } from '../audit/audit.service';
import { notFound, unprocessable } from '../common/control-errors';
import { ListQueryDto, mapPage } from '../common/pagination';
import { PolicyModulesRepository } from '../policy-modules/policy-modules.repository';
import { PolicyDraftDto, PolicyWriteDto } from './dto/policy-write.dto';
import { PolicyFields, PoliciesRepository } from './policies.repository';
import { Policy } from './policy.entity';
import { normalizeRules, PolicyRule } from './policy-rules';
import { policyVersion, snapshotPolicy } from './policy-snapshot';

/** Every new agent starts under this unless created with `skip_starter_policy`. */
export const STARTER_POLICY: PolicyDraftDto = { per_transaction_cap_cents: 50_000, approval_threshold_cents: 10_000 };

export function presentPolicy(policy: Policy, version: string) {
  return {
    id: policy.id,
    agent_id: policy.agent_id,
    status: policy.status,
    mode: policy.mode,
    per_transaction_cap_cents: policy.per_transaction_cap_cents,
    velocity_cap_cents: policy.velocity_cap_cents,
    velocity_window_seconds: policy.velocity_window_seconds,
    monthly_cap_cents: policy.monthly_cap_cents,
    approval_threshold_cents: policy.approval_threshold_cents,
    counterparty_allowlist: policy.counterparty_allowlist,
    imports: policy.imports,
    rules: policy.rules,
    version: policy.version,
    policy_version: version,
    created_at: policy.created_at,
    updated_at: policy.updated_at,
  };
}
export type PresentedPolicy = ReturnType<typeof presentPolicy>;

export type DraftFields = Omit<PolicyFields, 'status'>;
type ModuleRules = Map<string, PolicyRule[]>;

/** Merges a draft over the stored fields (absent keys keep their value) and validates the result. */
export function draftFields(dto: PolicyDraftDto, base?: DraftFields): DraftFields {
  const pick = <K extends keyof DraftFields>(key: K, fallback: DraftFields[K]): DraftFields[K] =>
    (dto as Record<string, unknown>)[key] !== undefined ? ((dto as Record<string, unknown>)[key] as DraftFields[K]) : (base?.[key] ?? fallback);
  const fields: DraftFields = {
    mode: pick('mode', 'blocklist'),
    per_transaction_cap_cents: pick('per_transaction_cap_cents', null),
    velocity_cap_cents: pick('velocity_cap_cents', null),
    velocity_window_seconds: pick('velocity_window_seconds', null),
    monthly_cap_cents: pick('monthly_cap_cents', null),
    approval_threshold_cents: pick('approval_threshold_cents', null),
    counterparty_allowlist: pick('counterparty_allowlist', []),
    imports: [...new Set(pick('imports', []))],
    rules: dto.rules !== undefined ? normalizeRules(dto.rules) : (base?.rules ?? []),
  };
  if ((fields.velocity_cap_cents === null) !== (fields.velocity_window_seconds === null)) {
    throw unprocessable('velocity_cap_cents and velocity_window_seconds are set together', fields.velocity_cap_cents === null ? 'velocity_cap_cents' : 'velocity_window_seconds');
  }
  return fields;
}

@Injectable()
export class PoliciesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly policies: PoliciesRepository,
    private readonly modules: PolicyModulesRepository,
    private readonly agents: AgentsRepository,
    private readonly audit: AuditService,
  ) {}

  async create(workspaceId: string, dto: PolicyWriteDto, actorSub: string, traceId: string): Promise<PresentedPolicy> {
    if (!dto.agent_id) throw unprocessable('agent_id is required', 'agent_id');
    const agentId = dto.agent_id;
    const fields = draftFields(dto);
    return retryingTransaction(this.dataSource, async (em) => {
      if (!(await this.agents.find(workspaceId, agentId, em))) throw notFound('agent');
      const modules = await this.resolve(em, workspaceId, fields);
      const policy = await this.policies.insert(em, workspaceId, agentId, { ...fields, status: dto.status ?? 'active' });
      return this.record(em, policy, modules, 'policy.created', actorSub, traceId);
    });
  }

  /** The starter policy, inside the agent's own creation transaction. */
  async createStarter(em: EntityManager, workspaceId: string, agentId: string, actorSub: string | null, traceId: string): Promise<PresentedPolicy> {
    const fields = draftFields(STARTER_POLICY);
    const policy = await this.policies.insert(em, workspaceId, agentId, { ...fields, status: 'active' });
    return this.record(em, policy, new Map(), 'policy.created', actorSub, traceId);
  }

  update(workspaceId: string, id: string, dto: PolicyWriteDto, actorSub: string, traceId: string): Promise<PresentedPolicy> {
    return retryingTransaction(this.dataSource, async (em) => {
      const current = await this.policies.findForUpdate(em, workspaceId, id);
      if (!current) throw notFound('policy');
      if (dto.agent_id !== undefined && dto.agent_id !== current.agent_id) throw unprocessable('A policy never moves to another agent');
      const fields = draftFields(dto, current);
      const modules = await this.resolve(em, workspaceId, fields);
      const policy = await this.policies.update(em, workspaceId, id, { ...fields, status: dto.status ?? current.status });
      return this.record(em, policy, modules, 'policy.updated', actorSub, traceId);
    });
  }

  async list(workspaceId: string, agentId: string | undefined, page: ListQueryDto) {
    const result = await this.policies.list(workspaceId, agentId, page);
    const modules = await this.moduleRules(this.dataSource.manager, workspaceId, result.data.flatMap((p) => p.imports), 'none');
    return mapPage(result, (p) => presentPolicy(p, policyVersion([snapshotPolicy(p, modules)])));
  }

  async get(workspaceId: string, id: string): Promise<PresentedPolicy> {
    const policy = await this.policies.find(workspaceId, id);
    if (!policy) throw notFound('policy');
    const modules = await this.moduleRules(this.dataSource.manager, workspaceId, policy.imports, 'none');
    return presentPolicy(policy, policyVersion([snapshotPolicy(policy, modules)]));
  }

  /**
   * The rules of a draft's imports; unknown imports answer 422. Imported modules are share-locked so
   * a concurrent delete cannot remove one this write is about to import.
   */
  async resolve(em: EntityManager, workspaceId: string, fields: DraftFields): Promise<ModuleRules> {
    const modules = await this.moduleRules(em, workspaceId, fields.imports, 'pessimistic_read');
    const missing = fields.imports.find((name) => !modules.has(name));
    if (missing) throw unprocessable(`imports: no policy module named ${missing}`, 'imports');
    return modules;
  }

  private async moduleRules(em: EntityManager, workspaceId: string, names: string[], lock: 'pessimistic_read' | 'none'): Promise<ModuleRules> {
    const unique = [...new Set(names)];
    const found =
      lock === 'none'
        ? await Promise.all(unique.map((n) => this.modules.find(workspaceId, n, em)))
        : await this.modules.lockByNames(em, workspaceId, unique, lock);
    return new Map(found.filter((m) => m !== null).map((m) => [m.name, m.rules]));
  }

  private async record(em: EntityManager, policy: Policy, modules: ModuleRules, action: string, actorSub: string | null, traceId: string) {
    const presented = presentPolicy(policy, policyVersion([snapshotPolicy(policy, modules)]));
    await this.audit.append(em, policy.workspace_id, {
      subject_type: 'Policy',
      subject_id: policy.id,
      action,
      trace_id: traceId,
      snapshot: presented,
      actor: actorSub ? { type: 'person', id: actorSub } : { type: 'system', id: null },
    });
    return presented;
  }
}
