import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import type { AgentMode } from '../agent-key';
import { SCOPE_MESSAGE, SCOPE_PATTERN } from './agent-fields';

export class CreateAgentDto {
  @IsString()
  @Length(1, 200)
  name: string;

  @IsOptional()
  @IsIn(['test', 'live'])
  mode: AgentMode = 'test';

  /** An agent may start suspended; it can never start revoked. */
  @IsOptional()
  @IsIn(['active', 'suspended'])
  status: 'active' | 'suspended' = 'active';

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(SCOPE_PATTERN, { each: true, message: SCOPE_MESSAGE })
  scopes: string[] = [];

  /** Largest budget the agent may open; null or absent means no ceiling. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  max_budget_cents?: number | null;

  /** Accepted for the reference's shape; starter policies arrive with the policy engine. */
  @IsOptional()
  @IsBoolean()
  skip_starter_policy?: boolean;
}
