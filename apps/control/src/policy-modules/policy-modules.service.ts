import { Injectable } from '@nestjs/common';
import { isUniqueViolation, retryingTransaction } from '@bursar/service-kit';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { notFound, unprocessable } from '../common/control-errors';
import { normalizeRules } from '../policies/policy-rules';
import { CreatePolicyModuleDto, UpdatePolicyModuleDto } from './dto/policy-module.dto';
import { PolicyModule } from './policy-module.entity';
import { PolicyModulesRepository } from './policy-modules.repository';

export function presentPolicyModule(module: PolicyModule) {
  return {
    id: module.id,
    name: module.name,
    description: module.description,
    rules: module.rules,
    created_at: module.created_at,
    updated_at: module.updated_at,
  };
}

/** Named rule sets policies import; an edit reaches every importing policy's later decisions. */
@Injectable()
export class PolicyModulesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly modules: PolicyModulesRepository,
    private readonly audit: AuditService,
  ) {}

  async create(workspaceId: string, dto: CreatePolicyModuleDto, actorSub: string, traceId: string): Promise<PolicyModule> {
    const rules = normalizeRules(dto.rules);
    try {
      return await retryingTransaction(this.dataSource, async (em) => {
        const module = await this.modules.insert(em, workspaceId, { name: dto.name, description: dto.description ?? null, rules });
        await this.record(em, module, 'policy_module.created', actorSub, traceId);
        return module;
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw unprocessable(`A policy module named ${dto.name} already exists`);
      throw e;
    }
  }

  list(workspaceId: string, query: { limit?: number; starting_after?: string }) {
    return this.modules.list(workspaceId, query);
  }

  async get(workspaceId: string, name: string): Promise<PolicyModule> {
    return (await this.modules.find(workspaceId, name)) ?? Promise.reject(notFound('policy module'));
  }

  update(workspaceId: string, name: string, dto: UpdatePolicyModuleDto, actorSub: string, traceId: string): Promise<PolicyModule> {
    const rules = dto.rules === undefined ? undefined : normalizeRules(dto.rules);
    return retryingTransaction(this.dataSource, async (em) => {
      const [current] = await this.modules.lockByNames(em, workspaceId, [name], 'pessimistic_write');
      if (!current) throw notFound('policy module');
      const module = await this.modules.update(em, workspaceId, current.id, {
        ...(dto.description !== undefined && { description: dto.description }),
        ...(rules !== undefined && { rules }),
      });
      await this.record(em, module, 'policy_module.updated', actorSub, traceId);
      return module;
    });
  }

  /** Refused while a policy imports the module; the lock keeps a concurrent import from slipping in. */
  delete(workspaceId: string, name: string, actorSub: string, traceId: string): Promise<void> {
    return retryingTransaction(this.dataSource, async (em) => {
      const [module] = await this.modules.lockByNames(em, workspaceId, [name], 'pessimistic_write');
      if (!module) throw notFound('policy module');
      if (await this.modules.isImported(em, workspaceId, name)) {
        throw unprocessable(`Policy module ${name} is imported by a policy; remove the import first`);
      }
      await this.modules.delete(em, workspaceId, module.id);
      await this.record(em, module, 'policy_module.deleted', actorSub, traceId);
    });
  }

  private record(em: EntityManager, module: PolicyModule, action: string, actorSub: string, traceId: string): Promise<void> {
    return this.audit.record(em, 'PolicyModule', module, presentPolicyModule(module), action, traceId, actorSub);
  }
}
