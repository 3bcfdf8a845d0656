import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsOptional, IsString, IsUUID, Length, Matches, Max, Min } from 'class-validator';
import { Nullable } from '@bursar/service-kit';

export const ACTION_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
/** The action fields a policy evaluates; shared by real requests and policy previews. */
export class ActionFieldsDto {
  @Nullable({ type: String, description: 'Counterparty or target; matched by allowlists' })
  @IsString()
  @Length(1, 500)
  resource?: string | null;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  cost_cents?: number;

  @ApiPropertyOptional({ description: 'Free keys; conditions read them as metadata.<dot.path>' })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class ActionRequestDto extends ActionFieldsDto {
  @ApiProperty({ description: 'An active budget of this agent' })
  @IsUUID()
  budget_id: string;

  @ApiProperty({ pattern: ACTION_TYPE_PATTERN.source })
  @IsString()
  @Length(1, 200)
  @Matches(ACTION_TYPE_PATTERN, { message: 'action_type must be lowercase, dot separated words' })
  action_type: string;

  @Nullable({ type: String, description: 'Links the audit trail; generated when absent' })
  @IsString()
  @Length(1, 200)
  trace_id?: string | null;
}
