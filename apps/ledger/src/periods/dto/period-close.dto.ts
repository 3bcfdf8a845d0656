import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { RequiredText } from '@bursar/service-kit';
import { IsInstant } from '../../common/is-instant.decorator';
import { LedgerSelectionQuery } from '../../common/pagination';

export class CreatePeriodCloseDto {
  @ApiProperty({ format: 'date-time', description: 'Inclusive start of the closed window of value dates' })
  @IsInstant()
  period_start: string;

  @ApiProperty({ format: 'date-time', description: 'Exclusive end; the trial balance is frozen at this instant' })
  @IsInstant()
  period_end: string;

  @RequiredText(1, 200, { description: 'Free label of who closes (not a service identity)' })
  closed_by_label: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  note?: string;

  @ApiPropertyOptional({ default: false, description: 'Close even when the trial balance does not net to zero; recorded' })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

export class ReopenPeriodDto {
  @RequiredText(1, 200)
  reopened_by_label: string;
}

/**
 * Query of a list that never paginates (period closes, webhook endpoints): the contract says they
 * answer one page "whatever limit is", so paging parameters are accepted and ignored.
 */
export class OnePageQuery extends LedgerSelectionQuery {
  @IgnoredPaging()
  limit?: string;

  @IgnoredPaging()
  cursor?: string;

  @IgnoredPaging()
  include_total?: string;
}

function IgnoredPaging(): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ description: 'Ignored: the list never paginates' }), IsOptional(), IsString());
}

export class ListPeriodClosesQuery extends OnePageQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'], default: 'true' })
  @IsOptional()
  @IsIn(['true', 'false'])
  include_reopened?: 'true' | 'false';
}
