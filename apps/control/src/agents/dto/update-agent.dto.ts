import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsString, Length, Matches, Max, Min, ValidateIf } from 'class-validator';
import { AGENT_STATUSES, AgentStatus } from '../agent.entity';
import { SCOPE_MESSAGE, SCOPE_PATTERN } from './agent-fields';
import { Nullable } from '@bursar/service-kit';

/** Absent fields stay as they are; only `max_budget_cents` may be set to null (no ceiling). */
export class UpdateAgentDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @ValidateIf((_, v) => v !== undefined)
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ enum: AGENT_STATUSES, description: 'revoked is final' })
  @ValidateIf((_, v) => v !== undefined)
  @IsIn(AGENT_STATUSES)
  status?: AgentStatus;

  @ApiPropertyOptional({ type: [String] })
  @ValidateIf((_, v) => v !== undefined)
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(SCOPE_PATTERN, { each: true, message: SCOPE_MESSAGE })
  scopes?: string[];

  @Nullable({ type: Number, minimum: 0 })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  max_budget_cents?: number | null;
}
