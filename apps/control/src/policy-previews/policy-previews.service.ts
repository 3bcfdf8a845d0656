import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AgentsRepository } from '../agents/agents.repository';
import { notFound } from '../common/control-errors';
import { Decision } from '../decisions/decision';
import { decide } from '../decisions/decision-engine';
import { recordedWindows } from '../decisions/decision-inputs';
import { IntentsRepository } from '../decisions/intents.repository';
import { PoliciesService, draftFields } from '../policies/policies.service';
import { PolicyEngine } from '../policies/policy-engine.service';
import { snapshotPolicy } from '../policies/policy-snapshot';
import { PolicyPreviewDto } from './dto/policy-preview.dto';

const DEFAULT_SESSION_BUDGET_CENTS = 100_000;

/**
 * Evaluates a draft policy against a hypothetical action and an unspent budget, with the agent's
 * real window history: the answer a decision would give. Nothing is written, not even audit.
 */
@Injectable()
export class PolicyPreviewsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly agents: AgentsRepository,
    private readonly policies: PoliciesService,
    private readonly engine: PolicyEngine,
    private readonly intents: IntentsRepository,
  ) {}

  async preview(workspaceId: string, dto: PolicyPreviewDto): Promise<Decision> {
    const em = this.dataSource.manager;
    const agent = await this.agents.find(workspaceId, dto.agent_id, em);
    if (!agent) throw notFound('agent');
    const fields = draftFields(dto.policy);
    const modules = await this.policies.resolve(em, workspaceId, fields);
    const loaded = this.engine.prepare([snapshotPolicy({ ...fields, id: 'draft' }, modules)]);
    const now = Date.now();
    const { windows } = loaded.compiled;
    const usage = await this.intents.windowUsage(em, workspaceId, agent.id, windows, now);
    const budgetCents = dto.session_budget_cents ?? DEFAULT_SESSION_BUDGET_CENTS;
    const action = {
      workspace_id: workspaceId,
      agent_id: agent.id,
      budget_id: randomUUID(),
      action_type: dto.action_type,
      resource: dto.resource ?? null,
      cost_cents: dto.cost_cents ?? 0,
      currency: 'USD',
      metadata: dto.metadata ?? {},
    };
    return decide(loaded, action, {
      now,
      agent: { mode: agent.mode, scopes: agent.scopes },
      budget: { status: 'active', budget_cents: budgetCents, spent_cents: 0, reserved_cents: 0 },
      windows: recordedWindows(windows, usage, now),
      spend_token: null,
    });
  }
}
