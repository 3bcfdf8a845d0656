import { Inject, Injectable, Optional } from '@nestjs/common';
import { retryingTransaction } from '@bursar/service-kit';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { BillingService } from '../billing/billing.service';
import { notFound, unprocessable } from '../common/control-errors';
import { ListQueryDto, mapPage } from '../common/pagination';
import { Agent } from './agent.entity';
import { issueAgentKey } from './agent-key';
import { AgentsRepository } from './agents.repository';
import { CreateAgentDto } from './dto/create-agent.dto';
import { UpdateAgentDto } from './dto/update-agent.dto';
import { STARTER_POLICY_WRITER, StarterPolicyWriter } from './starter-policy';

/** An agent as every response shows it: never the key, nor its digest. */
export function presentAgent(agent: Agent) {
  return {
    id: agent.id,
    name: agent.name,
    status: agent.status,
    mode: agent.mode,
    scopes: agent.scopes,
    api_key_prefix: agent.api_key_prefix,
    max_budget_cents: agent.max_budget_cents,
    last_used_at: agent.last_used_at,
    created_at: agent.created_at,
    updated_at: agent.updated_at,
  };
}

@Injectable()
export class AgentsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly agents: AgentsRepository,
    private readonly audit: AuditService,
    private readonly billing: BillingService,
    @Optional() @Inject(STARTER_POLICY_WRITER) private readonly starterPolicies?: StarterPolicyWriter,
  ) {}

  /**
   * Creates the agent, under the starter policy unless told to skip it, and returns its key, which
   * exists nowhere else from here on. The plan must allow one more agent, and live mode for a live one.
   */
  create(
    workspaceId: string,
    dto: CreateAgentDto,
    actorSub: string,
    traceId: string,
  ): Promise<{ agent: Agent; apiKey: string; starterPolicy: object | null }> {
    const key = issueAgentKey(dto.mode);
    return retryingTransaction(this.dataSource, async (em) => {
      await this.billing.assertEntitled(em, workspaceId, { kind: 'agents', live: dto.mode === 'live' });
      const agent = await this.agents.insert(em, workspaceId, {
        name: dto.name,
        status: dto.status,
        mode: dto.mode,
        scopes: dto.scopes,
        max_budget_cents: dto.max_budget_cents ?? null,
        key_lookup: key.lookup,
        key_digest: key.digest,
        api_key_prefix: key.prefix,
      });
      await this.record(em, agent, 'agent.created', actorSub, traceId);
      const starterPolicy =
        dto.skip_starter_policy || !this.starterPolicies
          ? null
          : await this.starterPolicies.createStarter(em, workspaceId, agent.id, actorSub, traceId);
      return { agent, apiKey: key.key, starterPolicy };
    });
  }

  async list(workspaceId: string, page: ListQueryDto) {
    return mapPage(await this.agents.list(workspaceId, page), presentAgent);
  }

  async get(workspaceId: string, id: string): Promise<Agent> {
    return (await this.agents.find(workspaceId, id)) ?? Promise.reject(notFound('agent'));
  }

  /** Renames, rescopes, re-ceilings, suspends, reactivates or revokes; revocation is final. */
  update(workspaceId: string, id: string, dto: UpdateAgentDto, actorSub: string, traceId: string): Promise<Agent> {
    return retryingTransaction(this.dataSource, async (em) => {
      const current = await this.agents.findForUpdate(em, workspaceId, id);
      if (!current) throw notFound('agent');
      if (current.status === 'revoked' && dto.status !== undefined && dto.status !== 'revoked') {
        throw unprocessable('A revoked agent stays revoked; create a new agent instead');
      }
      const agent = await this.agents.update(em, workspaceId, id, {
        ...(dto.name !== undefined && { name: dto.name }),
        ...(dto.status !== undefined && { status: dto.status }),
        ...(dto.scopes !== undefined && { scopes: dto.scopes }),
        ...(dto.max_budget_cents !== undefined && { max_budget_cents: dto.max_budget_cents }),
      });
      const action = agent.status !== current.status && agent.status !== 'active' ? `agent.${agent.status}` : 'agent.updated';
      await this.record(em, agent, action, actorSub, traceId);
      return agent;
    });
  }

  private record(em: EntityManager, agent: Agent, action: string, actorSub: string, traceId: string): Promise<void> {
    return this.audit.record(em, 'Agent', agent, presentAgent(agent), action, traceId, actorSub);
  }
}
