import { canonicalDigest } from '@bursar/crypto';
import { Injectable } from '@nestjs/common';
import { isUniqueViolation, retryingTransaction } from '@bursar/service-kit';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { Agent } from '../agents/agent.entity';
import { AgentKeyErrors } from '../agents/agent-key.errors';
import { AuditService } from '../audit/audit.service';
import { notFound } from '../common/control-errors';
import { CosignService } from '../cosign/cosign.service';
import { IdempotencyErrors, reusedKey } from '../idempotency/idempotency.errors';
import { LoadedPolicies, PolicyEngine } from '../policies/policy-engine.service';
import { SpendToken } from '../spend-tokens/spend-token.entity';
import { SpendTokensRepository } from '../spend-tokens/spend-tokens.repository';
import { PolicyVersionsService } from '../policy-versions/policy-versions.service';
import { WebhookEventsService } from '../webhooks/webhook-events.service';
import { AuthorizationRepository, BudgetFacts, DecisionInputs, IntentAudit } from './authorization.repository';
import { Decision, EvaluatedAction, Outcome, outcomeStatus } from './decision';
import { applySettlement, decide } from './decision-engine';
import { STATE_OF } from './counted-intents';
import { DecisionCounters, recordedWindows, Settlement, tokenCounters } from './decision-inputs';
import { Intent, IntentKind } from './intent.entity';
import { auditNames, presentIntent } from './intent.presenter';
import { IntentsRepository, NewIntent } from './intents.repository';
import { ReservationsRepository } from './reservations.repository';

export interface AuthorizationRequest {
  kind: IntentKind;
  budget_id: string;
  action_type: string;
  resource: string | null;
  amount_cents: number;
  metadata: Record<string, unknown>;
  trace_id: string;
  spend_token_id: string | null;
  decision_context: Record<string, unknown> | null;
}

export interface Authorization {
  intent: Intent;
  decision: Decision;
  status: number;
  cosignature: string | null;
  replayed: boolean;
}

/** One request through the authorizer. */
interface Call {
  agent: Agent;
  request: AuthorizationRequest;
  idempotencyKey: string;
  /** Of the request without its trace id, to tell a retry from another request under the same key. */
  digest: string;
}

interface Evaluation {
  action: EvaluatedAction;
  budget: BudgetFacts;
  token: SpendToken | null;
  counters: DecisionCounters;
  /** As the engine decided it, before any settlement. */
  decision: Decision;
}

/** The authorization, and the policies whose version it stored (null for a replay). */
interface Decided {
  authorization: Authorization;
  policies: LoadedPolicies | null;
}

/**
 * Authorizations, on one path: read the inputs in one statement, evaluate them with the engine,
 * then record the intent with its settlement (what the reservation and the token spend found).
 *
 * The path runs first without a transaction (`em` null), where the read and the write are each one
 * statement shared with concurrent requests; it gives way (null) to the same path in a transaction
 * for what needs one: a replay, a spend token, a windowed policy (decisions serialise per agent), a
 * hold (it also emits a webhook event), or a reservation that no longer fits (decided again under
 * the transaction's lock). In the transaction an intent, its reservation, its audit event and its
 * webhook event exist together or not at all.
 */
@Injectable()
export class AuthorizationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reads: AuthorizationRepository,
    private readonly intents: IntentsRepository,
    private readonly reservations: ReservationsRepository,
    private readonly tokens: SpendTokensRepository,
    private readonly engine: PolicyEngine,
    private readonly cosign: CosignService,
    private readonly audit: AuditService,
    private readonly webhooks: WebhookEventsService,
    private readonly versions: PolicyVersionsService,
  ) {}

  /**
   * Idempotent per agent and key: a request in flight holds the key (others get 409), a finished one
   * is replayed with its original status, intent and decision, even after a policy change.
   */
  async authorize(agent: Agent, request: AuthorizationRequest, idempotencyKey: string): Promise<Authorization> {
    try {
      return await this.authorizeOnce(agent, request, idempotencyKey);
    } catch (e) {
      // The key's first request committed while this one started: it was in flight a moment ago.
      if (isUniqueViolation(e)) throw IdempotencyErrors.error('idempotency_conflict');
      throw e;
    }
  }

  private async authorizeOnce(agent: Agent, request: AuthorizationRequest, idempotencyKey: string): Promise<Authorization> {
    // The trace id is generated when absent, so it cannot tell a retry from a different request.
    const call: Call = { agent, request, idempotencyKey, digest: canonicalDigest('', { ...request, trace_id: null }) };
    // A spend token is only ever spent in the transaction.
    const direct = request.spend_token_id ? null : await this.authorizeOn(null, call);
    // In a transaction the path always decides.
    const decided = direct ?? ((await retryingTransaction(this.dataSource, (em) => this.authorizeOn(em, call))) as Decided);
    // Only once committed: a rolled back version row must be written again by the next decision.
    if (decided.policies) this.versions.recorded(agent.workspace_id, decided.policies);
    return decided.authorization;
  }

  /** The one decision path; with `em` null, null when the request needs the transaction (see the class). */
  private async authorizeOn(em: EntityManager | null, call: Call): Promise<Decided | null> {
    const { agent, request } = call;
    const inputs = await this.reads.inputs(em, inputsQuery(agent, request, call.idempotencyKey));
    if (!inputs.locked) throw IdempotencyErrors.error('idempotency_conflict');
    if (inputs.existingId) {
      if (!em) return null;
      const existing = await this.intents.find({ workspaceId: agent.workspace_id, kind: request.kind, agentId: agent.id }, inputs.existingId, em);
      if (existing) {
        if (existing.request_digest !== call.digest) throw reusedKey();
        return { authorization: await this.replay(em, existing), policies: null };
      }
    }
    const policies = this.engine.fromJson(inputs.policiesJson);
    if (!em && policies.compiled.windows.length) return null;
    const evaluation = await this.evaluate(em, agent, request, inputs, policies);
    if (!em && evaluation.decision.outcome === 'requires_approval') return null;
    const authorization = em ? await this.recordInTransaction(em, call, evaluation, policies) : await this.recordDirectly(call, evaluation, policies);
    return authorization && { authorization, policies };
  }

  /**
   * One statement reserves, inserts the intent and its audit row, and writes the reservation's
   * settlement into the stored decision (SQL alone knows the figure, atomically with the
   * reservation). The answer gets the same settlement from `applySettlement`, the definition the
   * SQL form is bound to by the decision-agreement spec. Null when the reservation no longer fits.
   */
  private async recordDirectly(call: Call, evaluation: Evaluation, policies: LoadedPolicies): Promise<Authorization | null> {
    const { agent } = call;
    const { action, counters, decision } = evaluation;
    // Reserved by the write, which refuses the whole write when it no longer fits.
    const reserved = decision.outcome === 'allowed' ? action.cost_cents : 0;
    const { intent, cosignature } = await this.newIntent(call, evaluation, null, reserved);
    const written = await this.reads.record(intent, this.auditOf(intent, decision.outcome, agent), this.versions.unrecorded(agent.workspace_id, policies));
    if (!written) return null;
    const settlement: Settlement | null = written.before === null ? null : { reserved_before_cents: written.before };
    const settled = applySettlement(intent.decision as unknown as Decision, action, counters, settlement);
    const recorded: Intent = {
      ...intent,
      decision: settled as unknown as Record<string, unknown>,
      decision_inputs: { ...counters, settlement },
      created_at: written.created_at,
      updated_at: written.updated_at,
    };
    return { intent: recorded, decision: settled, status: recorded.http_status, cosignature, replayed: false };
  }

  /** Settles (reservation, token spend) and records the settled decision, its audit event and, for a hold or a lost race, its webhook event. */
  private async recordInTransaction(em: EntityManager, call: Call, evaluation: Evaluation, policies: LoadedPolicies): Promise<Authorization> {
    const { agent } = call;
    const { settlement, reserved } = await this.settle(em, agent, evaluation);
    const { intent: fresh, cosignature } = await this.newIntent(call, evaluation, settlement, reserved);
    const intent = await this.intents.insert(em, agent.workspace_id, fresh);
    await this.versions.insert(em, agent.workspace_id, this.versions.unrecorded(agent.workspace_id, policies));
    const decision = intent.decision as unknown as Decision;
    await this.record(em, intent, settlement?.lost_token ? 'failed' : decision.outcome, agent);
    return { intent, decision, status: intent.http_status, cosignature, replayed: false };
  }

  /** The intent row of a decision with its settlement applied, cosigned when allowed. */
  private async newIntent(call: Call, { action, budget, counters, decision: evaluated }: Evaluation, settlement: Settlement | null, reserved: number): Promise<{ intent: NewIntent; cosignature: string | null }> {
    const { agent, request } = call;
    const id = randomUUID();
    const decision: Decision = { ...applySettlement(evaluated, action, counters, settlement), id: randomUUID() };
    const lostToken = settlement?.lost_token === true;
    const signed = decision.outcome === 'allowed' ? await this.cosign.sign(cosignSubject(id, action, decision)) : null;
    const intent: NewIntent = {
      id,
      workspace_id: agent.workspace_id,
      agent_id: agent.id,
      budget_id: budget.id,
      kind: request.kind,
      action_type: action.action_type,
      resource: action.resource,
      amount_cents: action.cost_cents,
      currency: action.currency,
      state: lostToken ? 'failed' : STATE_OF[decision.outcome],
      reserved_cents: reserved,
      idempotency_key: call.idempotencyKey,
      request_digest: call.digest,
      http_status: outcomeStatus(decision.outcome),
      trace_id: request.trace_id,
      spend_token_id: request.spend_token_id,
      failure_reason: lostToken ? 'spend_token_unusable' : null,
      resolved_by_sub: null,
      resolved_at: null,
      ledger_transaction_id: null,
      decision: decision as unknown as Record<string, unknown>,
      decision_context: request.decision_context,
      decision_inputs: { ...counters, settlement },
      metadata: request.metadata,
      cosignature: signed?.token ?? null,
      cosign_expires_at: signed?.expires_at ?? null,
      cosign_consumed_at: null,
      consumed_by: null,
    };
    return { intent, cosignature: signed?.token ?? null };
  }

  /** The same evaluation with no intent, no reservation and no token use; only an audit event. */
  async simulate(agent: Agent, request: AuthorizationRequest): Promise<Decision> {
    const inputs = await this.reads.inputs(null, inputsQuery(agent, request, null));
    const { decision, budget } = await this.evaluate(null, agent, request, inputs, this.engine.fromJson(inputs.policiesJson));
    await this.reads.recordSimulation(agent.workspace_id, {
      subject_type: 'Session',
      subject_id: budget.id,
      action: 'action.simulated',
      trace_id: request.trace_id,
      snapshot: { kind: request.kind, action_type: request.action_type, resource: request.resource, cost_cents: request.amount_cents, decision },
      actor: { type: 'agent', id: agent.id },
    });
    return decision;
  }

  /** A cosignature for an intent that is spendable now (allowed, or approved since). */
  async issueCosignature(em: EntityManager, intent: Intent): Promise<string | null> {
    const decision = intent.decision as unknown as Decision;
    const signed = await this.cosign.sign(cosignSubject(intent.id, { ...intent, cost_cents: intent.amount_cents }, decision));
    if (signed) await this.intents.setCosignature(em, intent.workspace_id, intent.id, signed.token, signed.expires_at);
    return signed?.token ?? null;
  }

  /** The stored cosignature while it is usable; a fresh one once it expired (the intent is still spendable). */
  async currentCosignature(intent: Intent, em: EntityManager = this.dataSource.manager): Promise<string | null> {
    if (intent.state !== 'pending' || intent.cosign_consumed_at !== null || !this.cosign.enabled) return null;
    if (intent.cosignature && intent.cosign_expires_at && intent.cosign_expires_at.getTime() > Date.now() + 5_000) return intent.cosignature;
    return this.issueCosignature(em, intent);
  }

  private async replay(em: EntityManager, intent: Intent): Promise<Authorization> {
    return {
      intent,
      decision: intent.decision as unknown as Decision,
      status: intent.http_status,
      cosignature: await this.currentCosignature(intent, em),
      replayed: true,
    };
  }

  /**
   * Decides on what `inputs` read. The agent is judged as it is now (the key guard may hold it for a
   * moment); in a transaction, windowed decisions of the agent serialise.
   */
  private async evaluate(em: EntityManager | null, agent: Agent, request: AuthorizationRequest, inputs: DecisionInputs, policies: LoadedPolicies): Promise<Evaluation> {
    if (inputs.agent?.status !== 'active') throw AgentKeyErrors.error('invalid_runtime_key');
    const { budget } = inputs;
    if (!budget) throw notFound('budget');
    const reader = em ?? this.dataSource.manager;
    const token = request.spend_token_id ? await this.tokens.find(agent.workspace_id, request.spend_token_id, agent.id, reader) : null;
    if (request.spend_token_id && (!token || token.budget_id !== budget.id)) throw notFound('spend token');
    const now = Date.now();
    const { windows } = policies.compiled;
    if (em && windows.length) await this.intents.lockAgentWindows(em, agent.workspace_id, agent.id);
    const usage = await this.intents.windowUsage(reader, agent.workspace_id, agent.id, windows, now);
    const action: EvaluatedAction = {
      workspace_id: agent.workspace_id,
      agent_id: agent.id,
      budget_id: budget.id,
      action_type: request.action_type,
      resource: request.resource,
      cost_cents: request.amount_cents,
      currency: budget.currency,
      metadata: request.metadata,
    };
    const counters: DecisionCounters = {
      now,
      agent: { mode: inputs.agent.mode, scopes: inputs.agent.scopes },
      budget: { status: budget.status, budget_cents: budget.budget_cents, spent_cents: budget.spent_cents, reserved_cents: budget.reserved_cents },
      windows: recordedWindows(windows, usage, now),
      spend_token: token && tokenCounters(token, now),
    };
    return { action, budget, token, counters, decision: decide(policies, action, counters) };
  }

  /**
   * Takes the reservation and spends the token, and says what happened as the settlement that
   * `applySettlement` turns into the recorded decision. Either can lose a race the evaluation could
   * not see; the decision then turns into the denial that race means, with nothing held.
   */
  private async settle(em: EntityManager, agent: Agent, { action, token, decision }: Evaluation): Promise<{ settlement: Settlement | null; reserved: number }> {
    if (decision.outcome === 'denied') return { settlement: null, reserved: 0 };
    let before: number | undefined;
    if (action.cost_cents > 0) {
      const reservation = await this.reservations.reserve(em, agent.workspace_id, agent.id, action.budget_id, action.cost_cents);
      if ('refused' in reservation) return { settlement: { refused_budget: reservation.refused }, reserved: 0 };
      before = reservation.before;
    }
    if (token && !(await this.tokens.consume(em, agent.workspace_id, agent.id, token.id))) {
      await this.reservations.release(em, agent.workspace_id, agent.id, action.budget_id, before === undefined ? 0 : action.cost_cents);
      return { settlement: { ...(before !== undefined && { reserved_before_cents: before }), lost_token: true }, reserved: 0 };
    }
    return before === undefined ? { settlement: null, reserved: 0 } : { settlement: { reserved_before_cents: before }, reserved: action.cost_cents };
  }

  /** The audit row of a new intent; `event` is the outcome, or `failed` for a lost token race. */
  private auditEntry(intent: NewIntent, event: Outcome | 'failed', agent: Agent, snapshot: Record<string, unknown>) {
    const names = auditNames(intent);
    return { subject_type: names.subject_type, subject_id: intent.id, action: `${names.prefix}.${event}`, trace_id: intent.trace_id, snapshot, actor: { type: 'agent' as const, id: agent.id } };
  }

  /** For the single-statement write, which fills in the stored decision (reserved headroom included) and the timestamps. */
  private auditOf(intent: NewIntent, event: Outcome, agent: Agent): IntentAudit {
    const snapshot = presentIntent({ ...intent, decision: undefined, created_at: null, updated_at: null } as unknown as Intent);
    const decisionPath = [...(intent.kind === 'payment' ? ['decision_context'] : []), 'decision'];
    return { ...this.auditEntry(intent, event, agent, snapshot), decisionPath };
  }

  private async record(em: EntityManager, intent: Intent, event: Outcome | 'failed', agent: Agent): Promise<void> {
    const entry = this.auditEntry(intent, event, agent, presentIntent(intent));
    await this.audit.append(em, intent.workspace_id, entry);
    if (event === 'requires_approval' || event === 'failed') await this.webhooks.emit(em, intent.workspace_id, `${auditNames(intent).webhook}.${event}`, entry.snapshot);
  }
}

function inputsQuery(agent: Agent, request: AuthorizationRequest, idempotencyKey: string | null) {
  return { workspaceId: agent.workspace_id, agentId: agent.id, budgetId: request.budget_id, kind: request.kind, idempotencyKey };
}

function cosignSubject(intentId: string, action: Omit<EvaluatedAction, 'metadata'>, decision: Decision) {
  return {
    intent_id: intentId,
    workspace_id: action.workspace_id,
    agent_id: action.agent_id,
    budget_id: action.budget_id,
    action_type: action.action_type,
    resource: action.resource,
    amount_cents: action.cost_cents,
    currency: action.currency,
    policy_version: decision.policy_version,
    frame_hash: decision.frame_hash,
  };
}
