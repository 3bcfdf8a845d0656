import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { AgentStatus } from '../agents/agent.entity';
import type { AgentMode } from '../agents/agent-key';
import type { AuditEntry } from '../audit/audit.repository';
import type { BudgetStatus } from '../budgets/budget.entity';
import { parseCents } from '../common/cents.transformer';
import { preparedQuery, StatementBatcher } from '@bursar/service-kit';
import { activePoliciesJson } from '../policies/policies.repository';
import type { IntentKind } from './intent.entity';
import type { NewPolicyVersion } from '../policy-versions/policy-versions.repository';
import { INSERT_COLUMNS, NewIntent } from './intents.repository';
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

/**
 * An audit row written with an intent. Its snapshot leaves the decision out: SQL puts the intent's
 * stored decision there (reserved headroom included) with the intent's timestamps, so the decision
 * travels and is parsed once per authorization, not twice.
 */
export interface IntentAudit extends Omit<AuditEntry, 'snapshot'> {
  snapshot: Record<string, unknown>;
  /** Where the decision sits inside the snapshot. */
  decisionPath: string[];
}

/** The columns an audit row takes from its entry, beside its workspace, subject id and trace. */
function auditColumns(entry: Pick<AuditEntry, 'subject_type' | 'action' | 'snapshot' | 'actor'>) {
  return { subject_type: entry.subject_type, action: entry.action, snapshot: entry.snapshot, actor_type: entry.actor?.type ?? null, actor_id: entry.actor?.id ?? null };
}

/** A simulation's audit row, as the batched insert reads it from JSON. */
type AuditRow = { workspace_id: string; subject_type: string; subject_id: string; action: string; trace_id: string | null; snapshot: object; actor_type: string | null; actor_id: string | null };
const AUDIT_ROW_TYPES = { workspace_id: 'uuid', subject_type: 'text', subject_id: 'uuid', action: 'text', trace_id: 'text', snapshot: 'jsonb', actor_type: 'text', actor_id: 'text' };

/** SQL types of the intent columns, for the JSON rows a batched write reads. */
const INTENT_COLUMN_TYPES: Record<(typeof INSERT_COLUMNS)[number], string> = {
  id: 'uuid', workspace_id: 'uuid', agent_id: 'uuid', budget_id: 'uuid', kind: 'text', action_type: 'text', resource: 'text',
  amount_cents: 'bigint', currency: 'text', state: 'text', reserved_cents: 'bigint', idempotency_key: 'text', request_digest: 'text',
  http_status: 'integer', trace_id: 'text', spend_token_id: 'uuid', failure_reason: 'text', resolved_by_sub: 'text', resolved_at: 'timestamptz',
  ledger_transaction_id: 'text', decision: 'jsonb', decision_context: 'jsonb', decision_inputs: 'jsonb', metadata: 'jsonb', cosignature: 'text',
  cosign_expires_at: 'timestamptz', cosign_consumed_at: 'timestamptz', consumed_by: 'text',
};

/**
 * The rows of a batched statement, numbered `n` in order: they travel as one JSON array parameter
 * (`$1`), so nested JSON is serialised once and parsed once instead of escaped per array element.
 */
function jsonRows(types: Record<string, string>): string {
  const names = Object.keys(types);
  return `ROWS FROM (jsonb_to_recordset($1::jsonb) AS (${names.map((c) => `${c} ${types[c]}`).join(', ')})) WITH ORDINALITY AS q(${names.join(', ')}, n)`;
}

/** The batched read's rows: a request's workspace, agent, budget, kind, idempotency key and advisory lock key. */
const READ_TYPES = { ws: 'uuid', agent: 'uuid', budget: 'uuid', kind: 'text', key: 'text', lock: 'text' };

interface IntentWrite {
  intent: NewIntent;
  audit: IntentAudit;
  /** The policy version to store with the intent, the first time this process decides under it. */
  version: NewPolicyVersion | null;
}
type RawRecorded = { created_at: Date | null; updated_at: Date | null; before: string | null };
export type RecordedIntent = { created_at: Date; updated_at: Date; before: number | null };

interface RawInputs {
  locked: boolean;
  existing_id: string | null;
  agent: DecisionInputs['agent'];
  budget: RawBudget | null;
  policies: string;
}

/** The columns of the inputs read, given SQL expressions for the request's workspace, agent, budget, kind, key and lock. */
function inputColumns(q: Record<'workspace' | 'agent' | 'budget' | 'kind' | 'key' | 'locked', string>): string {
  // The key's intent by the unique key (agent_id, kind, idempotency_key) alone: with workspace_id in
  // the condition, a cached plan made while the table had no statistics scanned all the workspace's
  // intents of the kind (index on workspace_id, kind), a cost growing with every intent. The agent
  // read below checks the workspace, and a decision refuses an agent it does not find.
  return `${q.locked} AS locked,
          (SELECT id FROM intents WHERE agent_id = ${q.agent} AND kind = ${q.kind} AND idempotency_key = ${q.key}) AS existing_id,
          (SELECT json_build_object('status', a.status, 'mode', a.mode, 'scopes', a.scopes)
             FROM agents a WHERE a.workspace_id = ${q.workspace} AND a.id = ${q.agent}) AS agent,
          (SELECT json_build_object('id', b.id, 'status', b.status, 'currency', b.currency, 'budget_cents', b.budget_cents::text,
                                    'spent_cents', b.spent_cents::text, 'reserved_cents', b.reserved_cents::text)
             FROM budgets b WHERE b.workspace_id = ${q.workspace} AND b.agent_id = ${q.agent} AND b.id = ${q.budget}) AS budget,
          ${activePoliciesJson(q.workspace, q.agent)} AS policies`;
}

const lockKey = (q: InputsQuery) => (q.idempotencyKey === null ? null : `intent:${q.workspaceId}:${q.agentId}:${q.kind}:${q.idempotencyKey}`);

function toInputs(row: RawInputs): DecisionInputs {
  const budget = row.budget && {
    ...row.budget,
    budget_cents: parseCents(row.budget.budget_cents),
    spent_cents: parseCents(row.budget.spent_cents),
    reserved_cents: parseCents(row.budget.reserved_cents),
  };
  return { locked: row.locked, existingId: row.existing_id, agent: row.agent, budget, policiesJson: row.policies };
}

/** The batched inputs read (rows of READ_TYPES), one result row per request in order. */
const READ_INPUTS = `SELECT ${inputColumns({ workspace: 'q.ws', agent: 'q.agent', budget: 'q.budget', kind: 'q.kind', key: 'q.key', locked: 'CASE WHEN q.lock IS NULL THEN true ELSE pg_try_advisory_xact_lock(hashtextextended(q.lock, 0)) END' })}
  FROM ${jsonRows(READ_TYPES)}
 ORDER BY q.n`;

const AUDIT_COLUMNS = Object.keys(AUDIT_ROW_TYPES).join(', ');
const INSERT_AUDIT_ROWS = `INSERT INTO audit_events (${AUDIT_COLUMNS}) SELECT ${AUDIT_COLUMNS} FROM ${jsonRows(AUDIT_ROW_TYPES)}`;

const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column: string) => `to_jsonb(to_char(${column} AT TIME ZONE 'UTC', ${ISO_MS}))`;

/**
 * The hot path of authorizations in as few round trips as the guarantees allow: one statement
 * reads every input of a decision (shared by concurrent decisions), one statement writes its outcome
 * (reservation, intent, audit row) atomically, with no BEGIN/COMMIT around them; all prepared once
 * per connection.
 */
@Injectable()
export class AuthorizationRepository {
  /** Reads outside transactions, batched: concurrent decisions share one round trip. */
  private readonly reads = new StatementBatcher<InputsQuery, RawInputs>((qs) => this.readInputs(qs));
  /** Simulations' audit rows, batched: each waits for its own row, concurrent ones share the commit. */
  private readonly simulations = new StatementBatcher<AuditRow, void>(async (rows) => {
    await this.insertAuditRows(rows);
    return rows.map(() => undefined);
  });

  /** Authorization writes, batched: several reservations of one budget share a statement. */
  private readonly writes = new StatementBatcher<IntentWrite, RawRecorded>((ws) => this.writeIntents(ws));

  constructor(private readonly dataSource: DataSource) {}

  /**
   * With an idempotency key, also takes the key's advisory lock for `em`'s transaction, or without
   * a transaction (`em` null) probes it (see `locked`). Without a transaction the read may share its
   * statement with concurrent ones.
   */
  async inputs(em: EntityManager | null, q: InputsQuery): Promise<DecisionInputs> {
    if (!em) return toInputs(await this.reads.submit(q));
    const key = lockKey(q);
    const [row] = await preparedQuery<RawInputs>(
      em,
      `SELECT ${inputColumns({ workspace: '$1', agent: '$2', budget: '$3', kind: '$4', key: '$5', locked: key ? 'pg_try_advisory_xact_lock(hashtextextended($6, 0))' : 'true' })}`,
      [q.workspaceId, q.agentId, q.budgetId, q.kind, q.idempotencyKey, ...(key ? [key] : [])],
    );
    return toInputs(row);
  }

  /** One row per query, in order. Two queries of one key in a batch both see it free (advisory locks are per session); the intents' unique key settles them. */
  private readInputs(qs: InputsQuery[]): Promise<RawInputs[]> {
    return preparedQuery<RawInputs>(
      this.dataSource,
      READ_INPUTS,
      [JSON.stringify(qs.map((q) => ({ ws: q.workspaceId, agent: q.agentId, budget: q.budgetId, kind: q.kind, key: q.idempotencyKey, lock: lockKey(q) })))],
    );
  }

  /** A simulation's audit row, written before this resolves (in a batch with concurrent simulations' rows). */
  recordSimulation(workspaceId: string, entry: AuditEntry): Promise<void> {
    return this.simulations.submit({ workspace_id: workspaceId, subject_id: entry.subject_id, trace_id: entry.trace_id, ...auditColumns(entry) });
  }

  private async insertAuditRows(rows: AuditRow[]): Promise<void> {
    await preparedQuery(this.dataSource, INSERT_AUDIT_ROWS, [JSON.stringify(rows)]);
  }

  /**
   * Reserves `intent.reserved_cents` (when above zero) and inserts the intent and its audit row, all
   * or nothing. The decision's session headroom becomes what the budget had left just before this
   * reservation. Null when the reservation no longer fits: nothing was written. A concurrent twin of
   * the idempotency key fails the insert on its unique key. Concurrent writes share one statement:
   * its budgets are locked in id order (statements never wait on each other's budgets in a cycle)
   * and each budget's reservations apply in request order, as one update of its running total; a
   * statement is atomic, so a refused batch (a twin's unique violation, a deadlock between twins)
   * wrote nothing and is retried write by write.
   */
  async record(intent: NewIntent, audit: IntentAudit, version: NewPolicyVersion | null): Promise<RecordedIntent | null> {
    const row = await this.writes.submit({ intent, audit, version });
    return row.created_at === null ? null : { created_at: row.created_at, updated_at: row.updated_at as Date, before: row.before === null ? null : parseCents(row.before) };
  }

  private writeIntents(writes: IntentWrite[]): Promise<RawRecorded[]> {
    const rows = writes.map(({ intent, audit, version }) => {
      // Named fields rather than a mapped copy of the audit columns: this runs for every authorization.
      const a = auditColumns(audit);
      return {
        ...intent,
        a_subject_type: a.subject_type,
        a_action: a.action,
        a_snapshot: a.snapshot,
        a_actor_type: a.actor_type,
        a_actor_id: a.actor_id,
        a_path: audit.decisionPath,
        pv_id: version?.id ?? null,
        pv_rules: version?.rules ?? null,
      };
    });
    return preparedQuery<RawRecorded>(this.dataSource, WRITE_INTENTS, [JSON.stringify(rows)]);
  }
}

/** The batched write's rows: the intent's columns, then its audit row's own fields. */
const WRITE_TYPES = {
  ...INTENT_COLUMN_TYPES, a_subject_type: 'text', a_action: 'text', a_snapshot: 'jsonb', a_path: 'text[]', a_actor_type: 'text', a_actor_id: 'text',
  pv_id: 'text', pv_rules: 'jsonb',
};
/**
 * The reservation's settlement, written by SQL because only this statement knows the figure: into the
 * recorded settlement and, as `applySettlement` does with it, into the decision's session headroom
 * (the decision-agreement spec binds the two forms).
 */
const intentValue = (c: (typeof INSERT_COLUMNS)[number]) =>
  c === 'decision'
    ? `CASE WHEN r.before IS NULL THEN q.decision ELSE jsonb_set(q.decision, '{headroom,session_remaining_cents}', to_jsonb(r.before)) END`
    : c === 'decision_inputs'
      ? `CASE WHEN r.before IS NULL THEN q.decision_inputs ELSE jsonb_set(q.decision_inputs, '{settlement}', jsonb_build_object('reserved_before_cents', r.before)) END`
      : `q.${c}`;
const WRITE_INTENTS = `
  WITH q AS (
    SELECT * FROM ${jsonRows(WRITE_TYPES)}
  ), locked AS MATERIALIZED (
    SELECT b.id, b.workspace_id, b.agent_id, b.status, b.budget_cents - b.spent_cents - b.reserved_cents AS remaining
      FROM budgets b
     WHERE EXISTS (SELECT 1 FROM q WHERE q.reserved_cents > 0 AND q.budget_id = b.id AND q.workspace_id = b.workspace_id AND q.agent_id = b.agent_id)
     ORDER BY b.id FOR UPDATE
  ), claims AS (
    -- Sequential application in request order: a claim fits when the running total up to it does,
    -- so the claims that fit are a prefix per budget (a later one that would fit alone retries).
    SELECT q.n, q.budget_id, q.workspace_id, q.agent_id, q.reserved_cents,
           l.remaining - sum(q.reserved_cents) OVER (PARTITION BY q.budget_id ORDER BY q.n) AS after
      FROM q JOIN locked l ON l.id = q.budget_id AND l.workspace_id = q.workspace_id AND l.agent_id = q.agent_id
     WHERE q.reserved_cents > 0 AND l.status = 'active'
  ), totals AS (
    SELECT budget_id, workspace_id, agent_id, sum(reserved_cents)::bigint AS total FROM claims WHERE after >= 0 GROUP BY budget_id, workspace_id, agent_id
  ), budget AS (
    ${reserveStatement({ workspace: 't.workspace_id', agent: 't.agent_id', budget: 't.budget_id', amount: 't.total', from: 'totals t' })}, b.id
  ), reserved AS (
    SELECT c.n, (c.after + c.reserved_cents)::bigint AS before FROM claims c JOIN budget ON budget.id = c.budget_id WHERE c.after >= 0
  ), intent AS (
    INSERT INTO intents (${INSERT_COLUMNS.join(', ')})
    SELECT ${INSERT_COLUMNS.map(intentValue).join(', ')}
      FROM q LEFT JOIN reserved r ON r.n = q.n
     WHERE q.reserved_cents = 0 OR r.before IS NOT NULL
    RETURNING id, created_at, updated_at, decision
  ), audit AS (
    INSERT INTO audit_events (workspace_id, subject_type, subject_id, action, trace_id, snapshot, actor_type, actor_id)
    SELECT q.workspace_id, q.a_subject_type, q.id, q.a_action, q.trace_id,
           jsonb_set(jsonb_set(jsonb_set(q.a_snapshot, q.a_path, i.decision), '{created_at}', ${iso('i.created_at')}), '{updated_at}', ${iso('i.updated_at')}),
           q.a_actor_type, q.a_actor_id
      FROM intent i JOIN q ON q.id = i.id
  ), version AS (
    INSERT INTO policy_versions (workspace_id, id, rules)
    SELECT DISTINCT ON (q.workspace_id, q.pv_id) q.workspace_id, q.pv_id, q.pv_rules FROM q WHERE q.pv_id IS NOT NULL
    ON CONFLICT DO NOTHING
  )
  SELECT i.created_at, i.updated_at, r.before::text AS before
    FROM q LEFT JOIN intent i ON i.id = q.id LEFT JOIN reserved r ON r.n = q.n
   ORDER BY q.n`;
