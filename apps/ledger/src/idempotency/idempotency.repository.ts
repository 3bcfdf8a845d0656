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

/** A claimed key with the response to keep for replays. */
export interface CompletedKey {
  scope: KeyScope;
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

/** Parameter placeholders $first, $first+1, ... */
function placeholders(first: number) {
  return (i: number) => `$${first + i}`;
}

/**
 * An INSERT claiming `keys` (in progress) for requests with the given fingerprints, taking over a
 * dead holder's or an expired key (TAKE_OVER). It RETURNS `n`, `keyIdOf` of each key claimed; a
 * key it does not return is held or used by another request. A concurrent holder is waited for:
 * the primary key makes the insert wait for its commit or rollback. Usable alone or as a CTE of
 * the statement writing what the keys name.
 */
export function claimKeysInsert(
  keys: { scope: KeyScope; fingerprint: string }[],
  staleBefore: Date,
  expiredBefore: Date | null,
  firstParam: number,
): StatementPart {
  const $ = placeholders(firstParam);
  return {
    sql: `INSERT INTO idempotency_keys (organization_id, mode, client_id, route, key, fingerprint, state)
       SELECT x.org, x.mode, x.client, x.route, x.key, x.fingerprint, 'in_progress'
       FROM unnest(${$(0)}::uuid[], ${$(1)}::text[], ${$(2)}::text[], ${$(3)}::text[], ${$(4)}::text[], ${$(5)}::text[])
         AS x(org, mode, client, route, key, fingerprint)
       ON CONFLICT (organization_id, mode, client_id, route, key) DO UPDATE SET
         fingerprint = EXCLUDED.fingerprint, state = 'in_progress', locked_at = now(), created_at = now(),
         response_status = NULL, response_body = NULL, completed_at = NULL
       ${TAKE_OVER($(6), $(7))}
       RETURNING client_id || ' ' || route || ' ' || key AS n`,
    params: [...scopeColumns(keys.map((k) => k.scope)), keys.map((k) => k.fingerprint), staleBefore, expiredBefore],
  };
}

/** An UPDATE completing claimed `keys` with their responses. */
export function completeKeysUpdate(keys: CompletedKey[], firstParam: number): StatementPart {
  const $ = placeholders(firstParam);
  return {
    sql: `UPDATE idempotency_keys SET state = 'completed', completed_at = now(), response_status = x.status, response_body = x.body
       FROM unnest(${$(0)}::uuid[], ${$(1)}::text[], ${$(2)}::text[], ${$(3)}::text[], ${$(4)}::text[], ${$(5)}::int[], ${$(6)}::text[])
         AS x(org, mode, client, route, key, status, body)
       WHERE idempotency_keys.organization_id = x.org AND idempotency_keys.mode = x.mode AND idempotency_keys.client_id = x.client
         AND idempotency_keys.route = x.route AND idempotency_keys.key = x.key AND idempotency_keys.state = 'in_progress'`,
    params: [...scopeColumns(keys.map((k) => k.scope)), keys.map((k) => k.status), keys.map((k) => k.sealedBody)],
  };
}

/** The five scope columns of `scopes`, as parallel arrays. */
function scopeColumns(scopes: KeyScope[]) {
  return [
    scopes.map((s) => s.organizationId),
    scopes.map((s) => s.mode),
    scopes.map((s) => s.clientId),
    scopes.map((s) => s.route),
    scopes.map((s) => s.key),
  ];
}

/** What claimKeysInsert returns for a claimed key (organization and mode are the statement's ledger's). */
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
    const { sql, params } = claimKeysInsert([{ scope, fingerprint }], staleBefore, expiredBefore, 1);
    const rows: unknown[] = await this.dataSource.query(sql, params);
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
    const { sql, params } = completeKeysUpdate([{ scope, status, sealedBody }], 1);
    await this.dataSource.query(sql, params);
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
