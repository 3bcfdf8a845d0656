import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TenantScope } from '../common/mode';

/** Where one key lives: the tenant, the client that sent it and the route it was sent to. */
export interface KeyScope extends TenantScope {
  clientId: string;
  route: string;
  key: string;
}

export interface StoredKey {
  fingerprint: string;
  state: 'in_progress' | 'completed';
  responseStatus: number | null;
  /** Sealed JSON of the stored response. */
  responseBody: string | null;
}

const SCOPE_MATCH = 'organization_id = $1 AND mode = $2 AND client_id = $3 AND route = $4 AND key = $5';

function scopeParams(s: KeyScope) {
  return [s.organizationId, s.mode, s.clientId, s.route, s.key];
}

/** A key stored completed, with its response, by the write it belongs to. */
export interface CompletedKey {
  scope: KeyScope;
  fingerprint: string;
  status: number;
  sealedBody: string;
}

/**
 * When a request may take over a key row already there: its holder is presumed dead (in progress
 * since before $stale, same request) or its completed result has expired (before $expired).
 */
const TAKE_OVER = (stale: string, expired: string) => `
  WHERE (idempotency_keys.state = 'in_progress' AND idempotency_keys.locked_at < ${stale}
         AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
     OR (idempotency_keys.state = 'completed' AND idempotency_keys.completed_at < ${expired})`;

/** Part of a caller's statement: SQL text whose parameters start at the number it was built for. */
export interface StatementPart {
  sql: string;
  params: unknown[];
}

/**
 * An INSERT storing `keys` as completed, for a data-modifying CTE of the statement that writes what
 * they name (so a key exists exactly when its write does). It RETURNS `n`, `keyIdOf` of each key
 * stored; a key it does not return is held or used by another request. A concurrent holder is
 * waited for: the primary key makes this insert wait for its commit or rollback.
 */
export function completedKeysInsert(keys: CompletedKey[], staleBefore: Date, expiredBefore: Date | null, firstParam: number): StatementPart {
  const $ = (i: number) => `$${firstParam + i}`;
  return {
    sql: `INSERT INTO idempotency_keys (organization_id, mode, client_id, route, key, fingerprint, state, completed_at, response_status, response_body)
       SELECT x.org, x.mode, x.client, x.route, x.key, x.fingerprint, 'completed', now(), x.status, x.body
       FROM unnest(${$(0)}::uuid[], ${$(1)}::text[], ${$(2)}::text[], ${$(3)}::text[], ${$(4)}::text[], ${$(5)}::text[], ${$(6)}::int[], ${$(7)}::text[])
         AS x(org, mode, client, route, key, fingerprint, status, body)
       ON CONFLICT (organization_id, mode, client_id, route, key) DO UPDATE SET
         fingerprint = EXCLUDED.fingerprint, state = 'completed', locked_at = now(), created_at = now(),
         response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body, completed_at = now()
       ${TAKE_OVER($(8), $(9))}
       RETURNING client_id || ' ' || route || ' ' || key AS n`,
    params: [
      keys.map((k) => k.scope.organizationId),
      keys.map((k) => k.scope.mode),
      keys.map((k) => k.scope.clientId),
      keys.map((k) => k.scope.route),
      keys.map((k) => k.scope.key),
      keys.map((k) => k.fingerprint),
      keys.map((k) => k.status),
      keys.map((k) => k.sealedBody),
      staleBefore,
      expiredBefore,
    ],
  };
}

/** What completedKeysInsert returns for a stored key (organization and mode are the statement's ledger's). */
export function keyIdOf(scope: KeyScope): string {
  return `${scope.clientId} ${scope.route} ${scope.key}`;
}

@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Takes the key for this request in one statement, so of any number of parallel requests with
   * the same key exactly one wins. A key is also taken over when its holder is presumed dead
   * (in progress since before `staleBefore`, same request) or its completed result has expired
   * (completed before `expiredBefore`; null keeps results forever).
   */
  async claim(scope: KeyScope, fingerprint: string, staleBefore: Date, expiredBefore: Date | null): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_keys (organization_id, mode, client_id, route, key, fingerprint, state)
       VALUES ($1, $2, $3, $4, $5, $6, 'in_progress')
       ON CONFLICT (organization_id, mode, client_id, route, key) DO UPDATE SET
         fingerprint = EXCLUDED.fingerprint, state = 'in_progress', locked_at = now(), created_at = now(),
         response_status = NULL, response_body = NULL, completed_at = NULL
       ${TAKE_OVER('$7', '$8')}
       RETURNING 1`,
      [...scopeParams(scope), fingerprint, staleBefore, expiredBefore],
    );
    return rows.length === 1;
  }

  async find(scope: KeyScope): Promise<StoredKey | null> {
    const [row] = await this.dataSource.query(
      `SELECT fingerprint, state, response_status, response_body FROM idempotency_keys WHERE ${SCOPE_MATCH}`,
      scopeParams(scope),
    );
    if (!row) return null;
    return { fingerprint: row.fingerprint, state: row.state, responseStatus: row.response_status, responseBody: row.response_body };
  }

  async complete(scope: KeyScope, status: number, sealedBody: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_keys SET state = 'completed', completed_at = now(), response_status = $6, response_body = $7
       WHERE ${SCOPE_MATCH} AND state = 'in_progress'`,
      [...scopeParams(scope), status, sealedBody],
    );
  }

  /** Frees a key whose request failed, so a corrected retry can use it. */
  async release(scope: KeyScope): Promise<void> {
    await this.dataSource.query(`DELETE FROM idempotency_keys WHERE ${SCOPE_MATCH} AND state = 'in_progress'`, scopeParams(scope));
  }

  /** Deletes completed keys older than `before` in every tenant: the retention sweep, a maintenance job. */
  async purge(before: Date): Promise<number> {
    const [, count] = await this.dataSource.query(`DELETE FROM idempotency_keys WHERE state = 'completed' AND completed_at < $1`, [before]);
    return count;
  }
}
