import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min } from 'class-validator';
import { ListQueryDto } from '../../common/pagination';
import { OptionalIn, OptionalUuid } from '@bursar/service-kit';

export const INTENT_STATES = ['pending', 'held', 'requires_approval', 'completed', 'executed', 'failed', 'denied'] as const;

/** Queue filters of the reference; lenient where it is lenient (unknown sort, direction, held_before). */
export class IntentQueueDto extends ListQueryDto {
  @OptionalUuid({ description: 'Any other form answers 400' })
  agent_id?: string;

  @OptionalUuid({ description: 'Any other form answers 400' })
  budget_id?: string;

  @OptionalIn(INTENT_STATES, { description: 'requires_approval is accepted as the name of held' })
  state?: (typeof INTENT_STATES)[number];

  @ApiPropertyOptional({ example: 'llm.call', description: 'Exact action type (payment intents: payment.create)' })
  @IsOptional()
  @IsString()
  action_type?: string;

  @OptionalIn(['live', 'test'], { description: 'Any other value answers 400' })
  agent_mode?: 'live' | 'test';

  @ApiPropertyOptional({ enum: ['amount', 'age'], default: 'age', description: 'Unknown values sort by age' })
  @IsOptional()
  @Transform(({ value }) => (value === 'amount' ? 'amount' : 'age'))
  sort?: 'amount' | 'age';

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc', description: 'Unknown values sort descending' })
  @IsOptional()
  @Transform(({ value }) => (value === 'asc' ? 'asc' : 'desc'))
  direction?: 'asc' | 'desc';

  @ApiPropertyOptional({ minimum: 0, description: 'Also narrows the summary' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  min_amount_cents?: number;

  @ApiPropertyOptional({ description: 'Only intents created before this instant; unparsable values are ignored' })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value) : undefined))
  held_before?: Date;
}

export class DenyIntentDto {
  @ApiPropertyOptional({ default: 'approval_denied' })
  @IsOptional()
  @IsString()
  reason?: string;
}
