import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
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

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
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

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit = 50;
}

export class InclusionProofQuery extends LedgerSelectionQuery {
  @ApiProperty({ minimum: 0, description: 'The entry to prove' })
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_SIZE)
  index: number;

  @ApiProperty({ minimum: 1, description: "The tree to prove it in: a checkpoint's tree_size" })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_SIZE)
  tree_size: number;
}

export class ConsistencyProofQuery extends LedgerSelectionQuery {
  @ApiProperty({ minimum: 0, description: 'The older tree: the tree_size of the checkpoint held' })
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_SIZE)
  from_size: number;

  @ApiProperty({ minimum: 0, description: 'The newer tree: a later checkpoint\'s tree_size' })
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_SIZE)
  to_size: number;
}
