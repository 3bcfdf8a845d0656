import { Inject, Injectable } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { hmacSha256Hex, KEY_PURPOSES, timingSafeEqualString } from '@bursar/crypto';
import { OptionalInt } from '@bursar/service-kit';
import { LedgerSettings } from '../config/ledger.settings';
import { ListPage } from './envelope.interceptor';
import { LedgerErrors } from './ledger-errors';
import { TenantScope } from './mode';

/** Lets `ledger_id` (one way to pick the ledger, see @CurrentLedger) through query validation. */
export class LedgerSelectionQuery {
  @ApiPropertyOptional({ format: 'uuid', description: 'Ledger to read; X-Ledger-Id and a pinned token win over it' })
  @IsOptional()
  @IsString()
  ledger_id?: string;
}

export interface LimitBounds {
  defaultLimit: number;
  maxLimit: number;
}

/** The contract's bounds: most lists 50 by default and 1-200; posting lists 100 and 1-500. */
export const COMMON_LIMITS: LimitBounds = { defaultLimit: 50, maxLimit: 200 };
export const POSTING_LIMITS: LimitBounds = { defaultLimit: 100, maxLimit: 500 };

/** Query parameters every paginated list takes; build list DTOs by extending `PageQuery`. */
export function pageQueryOf({ defaultLimit, maxLimit }: LimitBounds) {
  class BoundedPageQuery extends LedgerSelectionQuery {
    @ApiPropertyOptional({ description: 'Opaque `next_cursor` of the previous page, passed back verbatim' })
    @IsOptional()
    @IsString()
    @MaxLength(1000)
    cursor?: string;

    @OptionalInt(1, maxLimit, { default: defaultLimit })
    limit: number = defaultLimit;

    @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Adds `total` (rows matching the filters) to the list' })
    @IsOptional()
    @IsIn(['true', 'false'])
    include_total?: 'true' | 'false';
  }
  return BoundedPageQuery;
}

export class PageQuery extends pageQueryOf(COMMON_LIMITS) {}
export class PostingPageQuery extends pageQueryOf(POSTING_LIMITS) {}

/** What a list route passes on from its PageQuery. */
export interface PageRequest {
  cursor?: string;
  limit: number;
  include_total?: 'true' | 'false';
}

/** Where a page ends: the row's sort key (as Postgres prints it) and its id. */
export interface Position {
  key: string;
  id: string;
}

/** How one list is ordered; `sortColumn` and `idColumn` are SQL expressions (`l.created_at`). */
export interface ListOrder {
  /** Names the list inside cursors, so a cursor of one list is refused by another. */
  list: string;
  sortColumn: string;
  /** Postgres type of the sort column (`timestamptz`, `bigint`, `text`). */
  sortType: string;
  /** A unique tie-breaker; may equal sortColumn. */
  idColumn: string;
  idType: string;
  direction: 'ASC' | 'DESC';
}

const CURSOR_VERSION = 1;
const KEY_ALIAS = 'page_sort_key';
const ID_ALIAS = 'page_row_id';

function badCursor(): never {
  throw LedgerErrors.error('invalid_request', {
    message: 'cursor is not a next_cursor this list returned',
    hint: 'Pass next_cursor back verbatim with the same filters; start over without cursor',
    param: 'cursor',
  });
}

/**
 * Keyset pagination with opaque cursors. A cursor is `base64url(payload).mac`: the payload holds
 * the last row's sort key and id; the MAC (keyed from LEDGER_SECRET_KEY) binds it to the list, the
 * organization and the mode, so edited cursors and cursors from another list or tenant are refused
 * with 422 `invalid_request` (param `cursor`). A cursor is a position, not a row reference: it keeps
 * working after its row is gone, and never expires.
 */
@Injectable()
export class Pagination {
  /** The current key signs cursors; the previous keys' still accept theirs after a key rotation. */
  private readonly keys: Buffer[];

  constructor(@Inject(LedgerSettings) settings: Pick<LedgerSettings, 'rootKeys'>) {
    this.keys = settings.rootKeys.subkeys(KEY_PURPOSES.cursors);
  }

  encode(order: ListOrder, scope: TenantScope, position: Position): string {
    const payload = Buffer.from(JSON.stringify({ v: CURSOR_VERSION, k: position.key, i: position.id })).toString('base64url');
    return `${payload}.${this.mac(this.keys[0], order, scope, payload)}`;
  }

  decode(order: ListOrder, scope: TenantScope, cursor: string): Position {
    const [payload, mac, extra] = cursor.split('.');
    if (!payload || !mac || extra !== undefined || !this.keys.some((key) => timingSafeEqualString(mac, this.mac(key, order, scope, payload)))) badCursor();
    try {
      const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (parsed.v !== CURSOR_VERSION || typeof parsed.k !== 'string' || typeof parsed.i !== 'string') badCursor();
      return { key: parsed.k, id: parsed.i };
    } catch {
      return badCursor();
    }
  }

  /**
   * One page of `qb` (already filtered and scoped by the repository) after the request's cursor,
   * mapped through `present`. Fetches one row more than `limit` to know whether more follow.
   */
  async page<T extends ObjectLiteral, U>(
    qb: SelectQueryBuilder<T>,
    order: ListOrder,
    scope: TenantScope,
    query: PageRequest,
    present: (row: T) => U,
  ): Promise<ListPage<U>> {
    const total = query.include_total === 'true' ? await qb.clone().getCount() : undefined;
    const { sortColumn, sortType, idColumn, idType, direction } = order;
    if (query.cursor !== undefined) {
      const after = this.decode(order, scope, query.cursor);
      const cmp = direction === 'ASC' ? '>' : '<';
      // Keys travel as Postgres prints them, so microsecond timestamps survive the round trip.
      qb.andWhere(`(${sortColumn}, ${idColumn}) ${cmp} (CAST(:pageKey AS ${sortType}), CAST(:pageId AS ${idType}))`, {
        pageKey: after.key,
        pageId: after.id,
      });
    }
    qb.addSelect(`${sortColumn}::text`, KEY_ALIAS)
      .addSelect(`${idColumn}::text`, ID_ALIAS)
      .orderBy(sortColumn, direction)
      .addOrderBy(idColumn, direction)
      .limit(query.limit + 1);
    const { entities, raw } = await qb.getRawAndEntities();
    const hasMore = entities.length > query.limit;
    const rows = entities.slice(0, query.limit);
    const last = raw[rows.length - 1] as Record<string, string> | undefined;
    const next = hasMore && last ? this.encode(order, scope, { key: last[KEY_ALIAS], id: last[ID_ALIAS] }) : null;
    return new ListPage(rows.map(present), hasMore, next, total);
  }

  /**
   * The page of a raw-SQL list whose repository fetched `limit + 1` rows after the decoded cursor,
   * each with its sort key as Postgres prints it (`sortKey`) beside its `id`.
   */
  pageOf<R extends { sortKey: string; id: string }, U>(
    rows: R[],
    order: ListOrder,
    scope: TenantScope,
    query: PageRequest,
    present: (row: Omit<R, 'sortKey'>) => U,
    total?: number,
  ): ListPage<U> {
    const data = rows.slice(0, query.limit);
    const last = data[data.length - 1];
    const next = rows.length > query.limit && last ? this.encode(order, scope, { key: last.sortKey, id: last.id }) : null;
    return new ListPage(
      data.map(({ sortKey: _sortKey, ...row }) => present(row)),
      next !== null,
      next,
      total,
    );
  }

  private mac(key: Buffer, order: ListOrder, scope: TenantScope, payload: string): string {
    return hmacSha256Hex(key, `${order.list}\n${scope.organizationId}\n${scope.mode}\n${payload}`).slice(0, 32);
  }
}
