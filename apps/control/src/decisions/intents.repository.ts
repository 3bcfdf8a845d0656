import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { parseCents } from '../common/cents.transformer';
import type { WindowSpec, WindowUsage } from '../policies/policy-compiler';
import { countedStateSql } from './counted-intents';
import { Intent, IntentKind, IntentState } from './intent.entity';

const COUNTED = countedStateSql('state');

export type NewIntent = Omit<Intent, 'created_at' | 'updated_at'>;

export const INSERT_COLUMNS = [
  'id', 'workspace_id', 'agent_id', 'budget_id', 'kind', 'action_type', 'resource', 'amount_cents', 'currency', 'state',
  'reserved_cents', 'idempotency_key', 'request_digest', 'http_status', 'trace_id', 'spend_token_id', 'failure_reason',
  'resolved_by_sub', 'resolved_at', 'ledger_transaction_id', 'decision', 'decision_context', 'decision_inputs', 'metadata', 'cosignature',
  'cosign_expires_at', 'cosign_consumed_at', 'consumed_by',
] as const satisfies readonly (keyof NewIntent)[];
const JSON_COLUMNS: ReadonlySet<string> = new Set(['decision', 'decision_context', 'decision_inputs', 'metadata']);

/** The values of INSERT_COLUMNS, in order, as query parameters. */
export function intentInsertValues(row: NewIntent): unknown[] {
  return INSERT_COLUMNS.map((c) => (JSON_COLUMNS.has(c) && row[c] !== null ? JSON.stringify(row[c]) : row[c]));
}

export interface IntentScope {
  workspaceId: string;
  kind: IntentKind;
  /** Set on agent routes: an agent reaches only its own intents. */
  agentId?: string;
}

@Injectable()
export class IntentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Serialises the agent's windowed decisions, so two requests never both fit the last room in a window. */
  async lockAgentWindows(em: EntityManager, workspaceId: string, agentId: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`windows:${workspaceId}:${agentId}`]);
  }

  find(scope: IntentScope, id: string, em: EntityManager = this.dataSource.manager): Promise<Intent | null> {
    return em.findOneBy(Intent, { workspace_id: scope.workspaceId, kind: scope.kind, id, ...(scope.agentId && { agent_id: scope.agentId }) });
  }

  /** One plain INSERT: this is the hot path of every authorization, so no ORM round-trip for defaults. */
  async insert(em: EntityManager, workspaceId: string, intent: NewIntent): Promise<Intent> {
    const row = { ...intent, workspace_id: workspaceId };
    const [created] = (await em.query(
      `INSERT INTO intents (${INSERT_COLUMNS.join(', ')})
       VALUES (${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
       RETURNING created_at, updated_at`,
      intentInsertValues(row),
    )) as Pick<Intent, 'created_at' | 'updated_at'>[];
    return { ...row, created_at: created.created_at, updated_at: created.updated_at };
  }

  /**
   * Moves an intent between states in one conditional statement, so of two racing resolutions only
   * one applies. Null when the intent is not in one of `from` (or out of reach).
   */
  async transition(
    em: EntityManager,
    scope: IntentScope,
    id: string,
    from: IntentState[],
    patch: Partial<Pick<Intent, 'state' | 'failure_reason' | 'resolved_by_sub' | 'resolved_at' | 'ledger_transaction_id' | 'reserved_cents'>>,
  ): Promise<Intent | null> {
    const qb = em
      .createQueryBuilder()
      .update(Intent)
      .set(patch)
      .where('workspace_id = :ws AND kind = :kind AND id = :id AND state IN (:...from)', { ws: scope.workspaceId, kind: scope.kind, id, from });
    if (scope.agentId) qb.andWhere('agent_id = :agentId', { agentId: scope.agentId });
    const result = await qb.returning('id').execute();
    return result.affected ? this.find(scope, id, em) : null;
  }

  async setCosignature(em: EntityManager, workspaceId: string, id: string, token: string, expiresAt: Date): Promise<void> {
    await em.update(Intent, { workspace_id: workspaceId, id }, { cosignature: token, cosign_expires_at: expiresAt });
  }

  /** Spend and count per window in one statement over the agent's counted intents. */
  async windowUsage(em: EntityManager, workspaceId: string, agentId: string, windows: WindowSpec[], now: number): Promise<WindowUsage[]> {
    if (!windows.length) return [];
    const params: unknown[] = [workspaceId, agentId];
    const param = (value: unknown) => `$${params.push(value)}`;
    const columns = windows.map((w, i) => {
      let filter = `created_at >= ${param(new Date(w.since(now)))}`;
      if (w.likePatterns) filter += ` AND action_type LIKE ANY (${param(w.likePatterns)}::text[])`;
      return `COALESCE(SUM(amount_cents) FILTER (WHERE ${filter}), 0)::text AS s${i}, COUNT(*) FILTER (WHERE ${filter})::int AS c${i},
              MIN(created_at) FILTER (WHERE ${filter}) AS o${i}`;
    });
    const since = param(new Date(Math.min(...windows.map((w) => w.since(now)))));
    const [row] = (await em.query(
      `SELECT ${columns.join(', ')} FROM intents
        WHERE workspace_id = $1 AND agent_id = $2 AND ${COUNTED} AND created_at >= ${since}`,
      params,
    )) as Record<string, string | number | Date | null>[];
    return windows.map((_, i) => ({
      spent_cents: parseCents(row[`s${i}`] as string),
      count: row[`c${i}`] as number,
      oldest_at: row[`o${i}`] ? (row[`o${i}`] as Date).getTime() : null,
    }));
  }
}
