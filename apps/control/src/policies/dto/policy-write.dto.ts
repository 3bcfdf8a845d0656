import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, IsUUID, Length, Matches, Max, Min, ValidateIf } from 'class-validator';
import { ListQueryDto } from '../../common/pagination';

const present = (_: unknown, v: unknown) => v !== undefined && v !== null;

/** An amount in cents that may be null (the shorthand is then off). */
const NullableCents = () => applyDecorators(ValidateIf(present), IsInt(), Min(0), Max(Number.MAX_SAFE_INTEGER));

/** The policy body a preview evaluates and a write stores: typed shorthand plus rules and imports. */
export class PolicyDraftDto {
  @ApiPropertyOptional({ enum: ['blocklist', 'allowlist'], default: 'blocklist', description: 'allowlist: some allow rule must match (else not_allowlisted)' })
  @IsOptional()
  @IsIn(['blocklist', 'allowlist'])
  mode?: 'blocklist' | 'allowlist';

  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'Reports as per_transaction_cap' })
  @NullableCents()
  per_transaction_cap_cents?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'With velocity_window_seconds; reports as velocity_cap' })
  @NullableCents()
  velocity_cap_cents?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true })
  @ValidateIf(present)
  @IsInt()
  @Min(1)
  @Max(366 * 86400)
  velocity_window_seconds?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'Calendar month (UTC); reports as monthly_cap' })
  @NullableCents()
  monthly_cap_cents?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'Holds (202) above this; reports as approval_threshold' })
  @NullableCents()
  approval_threshold_cents?: number | null;

  @ApiPropertyOptional({ type: [String], description: 'Reports as counterparty_allowlist; empty = no restriction' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @Length(1, 500, { each: true })
  counterparty_allowlist?: string[];

  @ApiPropertyOptional({ type: [String], description: 'Policy module names; their rules compile ahead of `rules`' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @Matches(/^[a-z0-9]+(-[a-z0-9]+)*$/, { each: true, message: 'imports must be policy module names' })
  imports?: string[];

  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'PolicyRule objects; invalid rules answer 422 naming the rule path in param' })
  @IsOptional()
  @IsArray()
  rules?: unknown[];
}

export class PolicyWriteDto extends PolicyDraftDto {
  @ApiPropertyOptional({ description: 'Required on create; a policy never moves to another agent' })
  @IsOptional()
  @IsUUID()
  agent_id?: string;

  @ApiPropertyOptional({ enum: ['active', 'disabled'], default: 'active' })
  @IsOptional()
  @IsIn(['active', 'disabled'])
  status?: 'active' | 'disabled';
}

export class ListPoliciesDto extends ListQueryDto {
  @ApiPropertyOptional({ description: "Only this agent's policies" })
  @IsOptional()
  @IsUUID()
  agent_id?: string;
}
