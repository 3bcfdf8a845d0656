import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, IsUUID, Matches, Max, Min } from 'class-validator';
import { NestedDto } from '@bursar/service-kit';
import { ACTION_TYPE_PATTERN, ActionFieldsDto } from '../../actions/dto/action-request.dto';
import { PolicyDraftDto } from '../../policies/dto/policy-write.dto';

export class PolicyPreviewDto extends ActionFieldsDto {
  @ApiProperty()
  @IsUUID()
  agent_id: string;

  @ApiProperty({ pattern: ACTION_TYPE_PATTERN.source })
  @IsString()
  @Matches(ACTION_TYPE_PATTERN, { message: 'action_type must be lowercase, dot separated words' })
  action_type: string;

  @ApiPropertyOptional({ default: 100_000, description: 'Size of the hypothetical, unspent budget the draft is evaluated against' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  session_budget_cents?: number;

  @ApiProperty({ type: PolicyDraftDto })
  @NestedDto(() => PolicyDraftDto)
  policy: PolicyDraftDto;
}
