import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import type { AgentMode } from '../agent-key';
import { SCOPE_MESSAGE, SCOPE_PATTERN } from './agent-fields';
import { Nullable } from '@bursar/service-kit';

export class CreateAgentDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiPropertyOptional({ enum: ['test', 'live'], default: 'test' })
  @IsOptional()
  @IsIn(['test', 'live'])
  mode: AgentMode = 'test';

  /** An agent may start suspended; it can never start revoked. */
  @ApiPropertyOptional({ enum: ['active', 'suspended'], default: 'active' })
  @IsOptional()
  @IsIn(['active', 'suspended'])
  status: 'active' | 'suspended' = 'active';

  @ApiPropertyOptional({ type: [String], description: 'Exact action types, namespaces (payment.*) or *; empty = unrestricted' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(SCOPE_PATTERN, { each: true, message: SCOPE_MESSAGE })
  scopes: string[] = [];

  /** Largest budget the agent may open; null or absent means no ceiling. */
  @Nullable({ type: Number, minimum: 0, description: 'Largest budget the agent may open; null = no ceiling' })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  max_budget_cents?: number | null;

  /** True to create the agent with no policy at all (it then denies everything: fail-closed). */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  skip_starter_policy?: boolean;
}
