import { Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { AgentStatus } from '../agents/agent.entity';
import type { AgentMode } from '../agents/agent-key';
import type { AuditEntry } from '../audit/audit.repository';
import type { BudgetStatus } from '../budgets/budget.entity';
import { parseCents } from '../common/cents.transformer';
import { activePoliciesJson } from '../policies/policies.repository';
import type { IntentKind } from './intent.entity';
import { INSERT_COLUMNS, intentInsertValues, NewIntent } from './intents.repository';
import { reserveStatement } from './reservations.repository';

/** The budget figures a decision reads. */
export interface BudgetFacts {
  id: string;
  status: BudgetStatus;
  currency: string;
  budget_cents: number;
  spent_cents: number;
  reserved_cents: number;
}

/** Everything a decision reads, as of one statement. */
export interface DecisionInputs {
  /**
   * False while another request of the same idempotency key holds it. Inside a transaction the lock
   * is then held until it ends; outside, the statement takes and drops it, which only probes.
   */
  locked: boolean;
  /** The intent this idempotency key already made. */
  existingId: string | null;
  /** The agent as it is now: the key guard may hold it for a moment, a decision may not. */
  agent: { status: AgentStatus; mode: AgentMode; scopes: string[] } | null;
  budget: BudgetFacts | null;
  /** The active policies as `activePoliciesJson` gives them. */
  policiesJson: string;
}

export interface InputsQuery {
  workspaceId: string;
  agentId: string;
  budgetId: string;
  kind: IntentKind;
  idempotencyKey: string | null;
}

type RawBudget = Omit<BudgetFacts, 'budget_cents' | 'spent_cents' | 'reserved_cents'> & Record<'budget_cents' | 'spent_cents' | 'reserved_cents', string>;

/** An audit row written with an intent; its snapshot gets the intent's timestamps and reserved headroom in SQL. */
export interface IntentAudit extends Omit<AuditEntry, 'snapshot'> {
  snapshot: Record<string, unknown>;
  /** Where the decision's `headroom.session_remaining_cents` sits inside the snapshot. */
  headroomPath: string[];
}

const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column: string) => `to_jsonb(to_char(${column} AT TIME ZONE 'UTC', ${ISO_MS}))`;

/**
 * The hot path of authorizations in as few round trips as the guarantees allow: one statement
 * reads every input of a decision, one statement writes its outcome (reservation, intent, audit
 * row) atomically, with no BEGIN/COMMIT around them.
 */
@Injectable()
export class AuthorizationRepository {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = (dataSource.driver as PostgresDriver).master as Pool;
  }

  /**
   * Inside a transaction (`em`) a plain query; outside, a named prepared statement, which each pooled
   * connection parses and plans once: these run on every authorization and every simulation.
   */
  private async run<T>(em: EntityManager | null, name: string, text: string, values: unknown[]): Promise<T[]> {
    if (em) return (await em.query(text, values)) as T[];
    return (await this.pool.query({ name, text, values })).rows as T[];
  }

  /** With an idempotency key, also takes (or probes, see `locked`) the key's advisory lock. `em` null: no transaction. */
  async inputs(em: EntityManager | null, q: InputsQuery): Promise<DecisionInputs> {
    const params: unknown[] = [q.workspaceId, q.agentId, q.budgetId, q.kind, q.idempotencyKey];
    const keyed = q.idempotencyKey !== null;
    if (keyed) params.push(`intent:${q.workspaceId}:${q.agentId}:${q.kind}:${q.idempotencyKey}`);
    const [row] = await this.run<{ locked: boolean; existing_id: string | null; agent: DecisionInputs['agent']; budget: RawBudget | null; policies: string }>(
      em,
      keyed ? 'control_decision_inputs_keyed' : 'control_decision_inputs',
      `SELECT ${keyed ? 'pg_try_advisory_xact_lock(hashtextextended($6, 0))' : 'true'} AS locked,
              (SELECT id FROM intents WHERE workspace_id = $1 AND agent_id = $2 AND kind = $4 AND idempotency_key = $5) AS existing_id,
              (SELECT json_build_object('status', a.status, 'mode', a.mode, 'scopes', a.scopes)
                 FROM agents a WHERE a.workspace_id = $1 AND a.id = $2) AS agent,
              (SELECT json_build_object('id', b.id, 'status', b.status, 'currency', b.currency, 'budget_cents', b.budget_cents::text,
                                        'spent_cents', b.spent_cents::text, 'reserved_cents', b.reserved_cents::text)
                 FROM budgets b WHERE b.workspace_id = $1 AND b.agent_id = $2 AND b.id = $3) AS budget,
              ${activePoliciesJson('$1', '$2')} AS policies`,
      params,
    );
    const budget = row.budget && {
      ...row.budget,
      budget_cents: parseCents(row.budget.budget_cents),
      spent_cents: parseCents(row.budget.spent_cents),
      reserved_cents: parseCents(row.budget.reserved_cents),
    };
    return { locked: row.locked, existingId: row.existing_id, agent: row.agent, budget, policiesJson: row.policies };
  }

  /** A simulation's audit row, outside any transaction (it records nothing else). */
  async recordSimulation(workspaceId: string, entry: AuditEntry): Promise<void> {
    await this.run(
      null,
      'control_record_simulation',
      `INSERT INTO audit_events (workspace_id, subject_type, subject_id, action, trace_id, snapshot, actor_type, actor_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [workspaceId, entry.subject_type, entry.subject_id, entry.action, entry.trace_id, JSON.stringify(entry.snapshot), entry.actor?.type ?? null, entry.actor?.id ?? null],
    );
  }

  /**
   * Reserves `intent.reserved_cents` (when above zero) and inserts the intent and its audit row, all
   * or nothing in one statement. The decision's session headroom becomes what the budget had left
   * just before this reservation. Null when the reservation no longer fits: nothing was written.
   * A concurrent twin of the idempotency key fails the insert on its unique key.
   */
  async record(intent: NewIntent, audit: IntentAudit): Promise<{ created_at: Date; updated_at: Date; before: number | null } | null> {
    const params = intentInsertValues(intent);
    const param = (value: unknown) => `$${params.push(value)}`;
    const p = (column: (typeof INSERT_COLUMNS)[number]) => `$${INSERT_COLUMNS.indexOf(column) + 1}`;
    const reserving = param(intent.reserved_cents > 0);
    const values = INSERT_COLUMNS.map((c) =>
      c === 'decision' ? `CASE WHEN r.before IS NULL THEN ${p(c)}::jsonb ELSE jsonb_set(${p(c)}::jsonb, '{headroom,session_remaining_cents}', to_jsonb(r.before)) END` : p(c),
    );
    const rows = await this.run<{ created_at: Date; updated_at: Date; before: string | null }>(
      null,
      'control_record_intent',
      `WITH reserved AS (
         ${reserveStatement({ workspace: p('workspace_id'), agent: p('agent_id'), budget: p('budget_id'), amount: p('reserved_cents'), when: `${reserving}::boolean` })} AS before
       ), intent AS (
         INSERT INTO intents (${INSERT_COLUMNS.join(', ')})
         SELECT ${values.join(', ')} FROM (SELECT 1) AS one LEFT JOIN reserved r ON true
          WHERE NOT ${reserving}::boolean OR r.before IS NOT NULL
         RETURNING created_at, updated_at
       ), audit AS (
         INSERT INTO audit_events (workspace_id, subject_type, subject_id, action, trace_id, snapshot, actor_type, actor_id)
         SELECT ${p('workspace_id')}, ${param(audit.subject_type)}, ${p('id')}, ${param(audit.action)}, ${p('trace_id')},
                jsonb_set(jsonb_set(
                  CASE WHEN r.before IS NULL THEN ${param(JSON.stringify(audit.snapshot))}::jsonb
                       ELSE jsonb_set(${`$${params.length}`}::jsonb, ${param(audit.headroomPath)}::text[], to_jsonb(r.before)) END,
                  '{created_at}', ${iso('i.created_at')}), '{updated_at}', ${iso('i.updated_at')}),
                ${param(audit.actor?.type ?? null)}, ${param(audit.actor?.id ?? null)}
           FROM intent i LEFT JOIN reserved r ON true
       )
       SELECT i.created_at, i.updated_at, r.before::text AS before FROM intent i LEFT JOIN reserved r ON true`,
      params,
    );
    if (!rows.length) return null;
    const [row] = rows;
    return { created_at: row.created_at, updated_at: row.updated_at, before: row.before === null ? null : parseCents(row.before) };
  }
}
