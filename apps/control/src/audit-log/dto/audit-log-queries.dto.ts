import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { OptionalText } from '@bursar/service-kit';
import { PageLimit } from '../../common/pagination';

const MAX_SIZE = Number.MAX_SAFE_INTEGER;

/** A non-negative integer query parameter (an index or a tree size). */
const Size = (min: number, description: string, optional = false) =>
  applyDecorators(
    (optional ? ApiPropertyOptional : ApiProperty)({ type: 'integer', minimum: min, description }),
    ...(optional ? [IsOptional()] : []),
    Type(() => Number),
    IsInt(),
    Min(min),
    Max(MAX_SIZE),
  );

/** Entries after an index, oldest first. */
export class ListLogEntriesDto {
  @Size(0, 'Index of the last entry seen (exclusive); the log starts at index 0 when absent', true)
  after?: number;

  @PageLimit()
  limit?: number;

  @OptionalText(1, 200, { description: "Only the entries of this resource (an audit event's subject_id)" })
  resource_id?: string;
}

/** Checkpoints newest first. */
export class ListLogCheckpointsDto {
  @PageLimit()
  limit?: number;

  @Size(0, 'next_cursor of the previous page: checkpoints of smaller tree sizes follow', true)
  cursor?: number;
}

export class InclusionProofQueryDto {
  @Size(0, 'Index of the entry to prove')
  index: number;

  @Size(1, 'Size of the tree to prove it in (a checkpoint\'s tree_size); at most the log\'s size')
  tree_size: number;
}

export class ConsistencyProofQueryDto {
  @Size(0, 'Size of the older tree')
  from_size: number;

  @Size(0, 'Size of the newer tree; at most the log\'s size')
  to_size: number;
}
