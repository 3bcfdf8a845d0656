import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { OptionalInstant } from '../../common/is-instant.decorator';
import { PostingPageQuery } from '../../common/pagination';

export class ListPostingsQuery extends PostingPageQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'])
  reconciled?: 'true' | 'false';

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  account?: string;

  @OptionalInstant('value_date strictly before this instant')
  before_value_date?: string;
}

export class AccountPostingsQuery extends PostingPageQuery {
  @ApiPropertyOptional({ description: 'tags[key]=value, ANDed', type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  tags?: Record<string, string>;
}
