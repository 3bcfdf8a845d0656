import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `limit` of a list: any integer, clamped by `pageLimit`. */
export const PageLimit = () =>
  applyDecorators(ApiPropertyOptional({ description: `Page size; clamped to 1..${MAX_LIMIT}`, default: DEFAULT_LIMIT }), IsOptional(), Type(() => Number), IsInt());

/** `limit` and `starting_after` of every paginated control list. */
export class ListQueryDto {
  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ description: 'Id of the last record seen; an unknown id restarts at the first page' })
  @IsOptional()
  @IsString()
  starting_after?: string;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The page size a list answers for `query.limit`. */
export function pageLimit(query: ListQueryDto): number {
  return Math.min(Math.max(query.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
}

export function mapPage<T, U>(page: Page<T>, present: (row: T) => U): Page<U> {
  return { ...page, data: page.data.map(present) };
}

/**
 * Runs `qb` (already scoped to `workspaceId`) one page at a time in (created_at, id) order. The
 * cursor row is looked up inside the same workspace, so a foreign or unknown `starting_after`
 * matches nothing and the first page comes back, as the reference does. `has_more` is true whenever
 * the page filled, even on the last one.
 */
export async function paginate<T extends ObjectLiteral & { id: string }>(
  qb: SelectQueryBuilder<T>,
  table: string,
  workspaceId: string,
  query: ListQueryDto,
  direction: 'ASC' | 'DESC' = 'DESC',
): Promise<Page<T>> {
  const alias = qb.alias;
  const limit = pageLimit(query);
  if (query.starting_after && UUID.test(query.starting_after)) {
    const cursor = `(SELECT c.created_at, c.id FROM ${table} c WHERE c.id = :pageCursor AND c.workspace_id = :pageWorkspace)`;
    qb.andWhere(`(NOT EXISTS ${cursor} OR (${alias}.created_at, ${alias}.id) ${direction === 'DESC' ? '<' : '>'} ${cursor})`, {
      pageCursor: query.starting_after,
      pageWorkspace: workspaceId,
    });
  }
  const data = await qb
    .orderBy(`${alias}.created_at`, direction)
    .addOrderBy(`${alias}.id`, direction)
    .limit(limit)
    .getMany();
  const hasMore = data.length === limit;
  return { data, has_more: hasMore, next_cursor: hasMore ? data[data.length - 1].id : null };
}
