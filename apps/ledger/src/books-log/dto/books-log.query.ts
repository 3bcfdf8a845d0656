import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { OptionalInt } from '@bursar/service-kit';
import { LedgerSelectionQuery } from '../../common/pagination';

const MAX_SIZE = Number.MAX_SAFE_INTEGER;

export class ListLogEntriesQuery extends LedgerSelectionQuery {
  @ApiPropertyOptional({ minimum: -1, description: 'Entries after this index (exclusive); a page\'s `next_cursor` is its last index' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(-1)
  @Max(MAX_SIZE)
  after = -1;

  @OptionalInt(1, 1000, { default: 100 })
  limit = 100;

  @ApiPropertyOptional({ description: "Only entries about this resource (a transaction's id, an account's, a period close's)" })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  resource_id?: string;
}

export class ListLogCheckpointsQuery extends LedgerSelectionQuery {
  @ApiPropertyOptional({ description: 'Opaque `next_cursor` of the previous page: checkpoints of smaller trees follow' })
  @IsOptional()
  @Matches(/^\d{1,15}$/, { message: 'cursor must be a next_cursor of an earlier page' })
  cursor?: string;

  @OptionalInt(1, 200, { default: 50 })
  limit = 50;
}

/** A required whole number from `min`: an index or a tree size. */
function LogPosition(min: number, description: string) {
  return applyDecorators(ApiProperty({ minimum: min, description }), Type(() => Number), IsInt(), Min(min), Max(MAX_SIZE));
}

export class InclusionProofQuery extends LedgerSelectionQuery {
  @LogPosition(0, 'The entry to prove')
  index: number;

  @LogPosition(1, "The tree to prove it in: a checkpoint's tree_size")
  tree_size: number;
}

export class ConsistencyProofQuery extends LedgerSelectionQuery {
  @LogPosition(0, 'The older tree: the tree_size of the checkpoint held')
  from_size: number;

  @LogPosition(0, "The newer tree: a later checkpoint's tree_size")
  to_size: number;
}
