import { Injectable } from '@nestjs/common';
import { preparedQuery } from '@bursar/service-kit';
import { DataSource, EntityManager } from 'typeorm';
import type { AgentMode } from '../agents/agent-key';
import { parseCents } from '../common/cents.transformer';
import type { DecisionVerdict } from '../decisions/decision-engine';
import { countedOutcomeSql, countedStateSql } from '../decisions/counted-intents';
import type { RecordedInputs } from '../decisions/decision-inputs';
import type { PolicySnapshot } from '../policies/policy-compiler';
import type { BacktestMode, BacktestSummary, HistoryRecord } from './backtest-simulator';

export type BacktestStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface PolicyBacktest {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  mode: BacktestMode;
  policy: Record<string, unknown>;
  snapshot: PolicySnapshot;
  from_at: Date;
  to_at: Date;
  status: BacktestStatus;
  progress: number;
  evaluated: number;
  result: BacktestSummary | null;
  failure_reason: string | null;
  attempts: number;
  started_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
}

export type NewBacktest = Pick<PolicyBacktest, 'workspace_id' | 'agent_id' | 'mode' | 'policy' | 'snapshot' | 'from_at' | 'to_at' | 'status'>;

export interface BacktestChangeRow {
  intent_id: string;
  kind: string;
  agent_id: string;
  action_type: string;
  resource: string | null;
  amount_cents: number;
  currency: string;
  requested_at: Date;
  original: Record<string, unknown>;
  replayed: Record<string, unknown>;
}

/** Where a history read stands: the scope and window, and the last intent read. */
export interface HistoryQuery {
  workspaceId: string;
  agentId: string | null;
  /** First request read (warm-up included), first evaluated, end (exclusive); ms. */
  warmFrom: number;
  from: number;
  to: number;
  after: string | null;
  limit: number;
  withMetadata: boolean;
}

type RawBacktest = Omit<PolicyBacktest, 'evaluated'> & { evaluated: string };
type RawHistory = Omit<HistoryRecord, 'amount_cents' | 'metadata' | 'session_remaining_cents'> & {
  amount_cents: string;
  metadata: Record<string, unknown> | null;
  session_remaining_cents: string | null;
  inputs: RecordedInputs | null;
};

const NO_METADATA: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const BACKTEST_COLUMNS = `id, workspace_id, agent_id, mode, policy, snapshot, from_at, to_at, status, progress, evaluated::text, result,
  failure_reason, attempts, started_at, completed_at, created_at`;
const toBacktest = (row: RawBacktest): PolicyBacktest => ({ ...row, evaluated: Number(row.evaluated) });
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

/**
 * One page of an agent's or a workspace's decisions in (agent, created_at, id) order, with only the
 * columns a backtest reads. Later pages start after the intent `$6`: without a cursor-less branch in
 * the SQL the row comparison is an index bound, not a filter re-reading every earlier page.
 */
const HISTORY_PAGE_FROM = (after: string) => `
  SELECT i.id, i.workspace_id, i.agent_id, i.budget_id, i.action_type, i.resource, i.amount_cents::text AS amount_cents, i.currency,
         CASE WHEN $8 THEN i.metadata END AS metadata,
         ${ms('i.created_at')} AS at,
         CASE WHEN NOT (${countedStateSql('i.state')}) AND ${countedOutcomeSql("i.decision->>'outcome'")} THEN ${ms('COALESCE(i.resolved_at, i.updated_at)')} END AS released_at,
         i.spend_token_id, i.decision->>'outcome' AS outcome, i.decision->>'rule' AS rule, (i.decision->'remedy')::text AS remedy_json,
         i.decision->'headroom'->>'session_remaining_cents' AS session_remaining_cents,
         i.decision_inputs AS inputs,
         i.created_at >= $4 AS evaluated
    FROM intents i
   WHERE i.workspace_id = $1 AND ($2::uuid IS NULL OR i.agent_id = $2)
     AND i.created_at >= $3 AND i.created_at < $5
     AND ${after}
   ORDER BY i.agent_id, i.created_at, i.id
   LIMIT $7`;
const FIRST_HISTORY_PAGE = HISTORY_PAGE_FROM('$6::uuid IS NULL');
const NEXT_HISTORY_PAGE = HISTORY_PAGE_FROM('(i.agent_id, i.created_at, i.id) > (SELECT c.agent_id, c.created_at, c.id FROM intents c WHERE c.id = $6)');

@Injectable()
export class PolicyBacktestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(em: EntityManager, row: NewBacktest): Promise<PolicyBacktest> {
    const [created] = (await em.query(
      `INSERT INTO policy_backtests (workspace_id, agent_id, mode, policy, snapshot, from_at, to_at, status, started_at, heartbeat_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $8 = 'running' THEN now() END, CASE WHEN $8 = 'running' THEN now() END)
       RETURNING ${BACKTEST_COLUMNS}`,
      [row.workspace_id, row.agent_id, row.mode, JSON.stringify(row.policy), JSON.stringify(row.snapshot), row.from_at, row.to_at, row.status],
    )) as RawBacktest[];
    return toBacktest(created);
  }

  async find(workspaceId: string, id: string, em: EntityManager = this.dataSource.manager): Promise<PolicyBacktest | null> {
    const [row] = (await em.query(`SELECT ${BACKTEST_COLUMNS} FROM policy_backtests WHERE workspace_id = $1 AND id = $2`, [workspaceId, id])) as RawBacktest[];
    return row ? toBacktest(row) : null;
  }

  /** Newest first; an unknown or foreign `startingAfter` gives the first page. */
  async list(workspaceId: string, limit: number, startingAfter: string | null): Promise<PolicyBacktest[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${BACKTEST_COLUMNS} FROM policy_backtests b
        WHERE b.workspace_id = $1
          AND ($2::uuid IS NULL OR NOT EXISTS (SELECT 1 FROM policy_backtests c WHERE c.workspace_id = $1 AND c.id = $2)
               OR (b.created_at, b.id) < (SELECT c.created_at, c.id FROM policy_backtests c WHERE c.workspace_id = $1 AND c.id = $2))
        ORDER BY b.created_at DESC, b.id DESC LIMIT $3`,
      [workspaceId, startingAfter, limit],
    )) as RawBacktest[];
    return rows.map(toBacktest);
  }

  /** How many decisions the window holds, counting no further than `cap`. */
  async countDecisions(workspaceId: string, agentId: string | null, from: Date, to: Date, cap: number): Promise<number> {
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM intents WHERE workspace_id = $1 AND ($2::uuid IS NULL OR agent_id = $2) AND created_at >= $3 AND created_at < $4 LIMIT $5) w`,
      [workspaceId, agentId, from, to, cap],
    )) as { n: number }[];
    return row.n;
  }

  /** The agents' keys as they are now, for decisions recorded without their counters. */
  async agentKeys(workspaceId: string, agentId: string | null): Promise<Map<string, { mode: AgentMode; scopes: string[] }>> {
    const rows = (await this.dataSource.query(`SELECT id, mode, scopes FROM agents WHERE workspace_id = $1 AND ($2::uuid IS NULL OR id = $2)`, [
      workspaceId,
      agentId,
    ])) as { id: string; mode: AgentMode; scopes: string[] }[];
    return new Map(rows.map((r) => [r.id, { mode: r.mode, scopes: r.scopes }]));
  }

  async historyPage(q: HistoryQuery): Promise<HistoryRecord[]> {
    const rows = await preparedQuery<RawHistory>(this.dataSource, q.after === null ? FIRST_HISTORY_PAGE : NEXT_HISTORY_PAGE, [
      q.workspaceId,
      q.agentId,
      new Date(q.warmFrom),
      new Date(q.from),
      new Date(q.to),
      q.after,
      q.limit,
      q.withMetadata,
    ]);
    return rows.map((r) => ({
      ...r,
      amount_cents: parseCents(r.amount_cents),
      metadata: r.metadata ?? NO_METADATA,
      session_remaining_cents: r.session_remaining_cents === null ? null : Number(r.session_remaining_cents),
    }));
  }

  /**
   * Takes a queued backtest, or a running one whose worker stopped beating for `staleMs`, and clears
   * what an earlier attempt wrote: a run always starts over. Null when another worker has it.
   */
  async claim(workspaceId: string, id: string, staleMs: number): Promise<PolicyBacktest | null> {
    const [row] = (await this.dataSource.query(
      `WITH claimed AS (
         UPDATE policy_backtests SET status = 'running', attempts = attempts + 1, heartbeat_at = now(), started_at = COALESCE(started_at, now()),
                progress = 0, evaluated = 0
          WHERE workspace_id = $1 AND id = $2
            AND (status = 'queued' OR (status = 'running' AND heartbeat_at < now() - $3 * interval '1 millisecond'))
          RETURNING ${BACKTEST_COLUMNS}
       ), cleared AS (
         DELETE FROM policy_backtest_changes c USING claimed WHERE c.backtest_id = claimed.id
       )
       SELECT * FROM claimed`,
      [workspaceId, id, staleMs],
    )) as RawBacktest[];
    return row ? toBacktest(row) : null;
  }

  /** Progress and a heartbeat; false when the run no longer holds the backtest. */
  async beat(workspaceId: string, id: string, progress: number, evaluated: number): Promise<boolean> {
    // An UPDATE answers [rows, affected].
    const [, affected] = (await this.dataSource.query(
      `UPDATE policy_backtests SET progress = $3, evaluated = $4, heartbeat_at = now() WHERE workspace_id = $1 AND id = $2 AND status = 'running'`,
      [workspaceId, id, progress, evaluated],
    )) as [unknown[], number];
    return affected > 0;
  }

  /** The changes name their intents (from the workspace's history the run read); the list joins the rest. */
  async insertChanges(workspaceId: string, backtestId: string, changes: { seq: number; intent_id: string; replayed: DecisionVerdict & { policy_version: string } }[]): Promise<void> {
    if (!changes.length) return;
    await this.dataSource.query(
      `INSERT INTO policy_backtest_changes (backtest_id, seq, intent_id, replayed)
       SELECT $1, q.seq, q.intent_id, q.replayed FROM json_to_recordset($2::json) AS q(seq bigint, intent_id uuid, replayed json)
        WHERE EXISTS (SELECT 1 FROM policy_backtests b WHERE b.id = $1 AND b.workspace_id = $3)`,
      [backtestId, JSON.stringify(changes), workspaceId],
    );
  }

  /** Marks the run completed; null when it no longer held the backtest. */
  async complete(em: EntityManager, workspaceId: string, id: string, result: BacktestSummary): Promise<PolicyBacktest | null> {
    const [[row]] = (await em.query(
      `UPDATE policy_backtests SET status = 'completed', progress = 1, evaluated = $3, result = $4, completed_at = now(), heartbeat_at = NULL
        WHERE workspace_id = $1 AND id = $2 AND status = 'running'
        RETURNING ${BACKTEST_COLUMNS}`,
      [workspaceId, id, result.evaluated, JSON.stringify(result)],
    )) as [RawBacktest[], number];
    return row ? toBacktest(row) : null;
  }

  async fail(workspaceId: string, id: string, reason: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE policy_backtests SET status = 'failed', failure_reason = $3, completed_at = now(), heartbeat_at = NULL WHERE workspace_id = $1 AND id = $2 AND status = 'running'`,
      [workspaceId, id, reason],
    );
  }

  /** Hands a run stopped by a shutdown back to the queue. */
  async release(workspaceId: string, id: string): Promise<void> {
    await this.dataSource.query(`UPDATE policy_backtests SET status = 'queued', heartbeat_at = NULL WHERE workspace_id = $1 AND id = $2 AND status = 'running'`, [
      workspaceId,
      id,
    ]);
  }

  /**
   * Every workspace's backtests that need a worker: queued ones, and running ones whose worker died
   * (no heartbeat for `staleMs`). The sweep is the one read across workspaces, as the webhook relay's.
   */
  async unfinished(staleMs: number): Promise<{ id: string; workspace_id: string }[]> {
    return (await this.dataSource.query(
      `SELECT id, workspace_id FROM policy_backtests
        WHERE status = 'queued' OR (status = 'running' AND heartbeat_at < now() - $1 * interval '1 millisecond')
        ORDER BY created_at LIMIT 1000`,
      [staleMs],
    )) as { id: string; workspace_id: string }[];
  }

  /** Changes in evaluation order after the change of intent `startingAfter` (unknown: from the first). */
  async changes(workspaceId: string, backtestId: string, limit: number, startingAfter: string | null): Promise<BacktestChangeRow[]> {
    const rows = (await this.dataSource.query(
      `SELECT c.intent_id, i.kind, i.agent_id, i.action_type, i.resource, i.amount_cents::text AS amount_cents, i.currency, i.created_at AS requested_at,
              i.decision - 'policy_snapshot' AS original, c.replayed
         FROM policy_backtest_changes c JOIN policy_backtests b ON b.id = c.backtest_id AND b.workspace_id = $1
         JOIN intents i ON i.id = c.intent_id AND i.workspace_id = $1
        WHERE c.backtest_id = $2
          AND c.seq > COALESCE((SELECT s.seq FROM policy_backtest_changes s WHERE s.backtest_id = $2 AND s.intent_id = $3::uuid), -1)
        ORDER BY c.seq LIMIT $4`,
      [workspaceId, backtestId, startingAfter, limit],
    )) as (Omit<BacktestChangeRow, 'amount_cents'> & { amount_cents: string })[];
    return rows.map((r) => ({ ...r, amount_cents: parseCents(r.amount_cents) }));
  }
}
