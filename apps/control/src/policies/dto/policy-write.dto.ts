import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { ListQueryDto } from '../../common/pagination';
import { Nullable, OptionalIn, OptionalUuid } from '@bursar/service-kit';

/** An amount in cents that may be null (the shorthand is then off). */
const NullableCents = (description?: string) => applyDecorators(Nullable({ type: 'integer', description }), IsInt(), Min(0), Max(Number.MAX_SAFE_INTEGER));

/** The policy body a preview evaluates and a write stores: typed shorthand plus rules and imports. */
export class PolicyDraftDto {
  @OptionalIn(['blocklist', 'allowlist'], { default: 'blocklist', description: 'allowlist: some allow rule must match (else not_allowlisted)' })
  mode?: 'blocklist' | 'allowlist';

  @NullableCents('Reports as per_transaction_cap')
  per_transaction_cap_cents?: number | null;

  @NullableCents('With velocity_window_seconds; reports as velocity_cap')
  velocity_cap_cents?: number | null;

  @Nullable({ type: 'integer' })
  @IsInt()
  @Min(1)
  @Max(366 * 86400)
  velocity_window_seconds?: number | null;

  @NullableCents('Calendar month (UTC); reports as monthly_cap')
  monthly_cap_cents?: number | null;

  @NullableCents('Holds (202) above this; reports as approval_threshold')
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
  @OptionalUuid({ description: 'Required on create; a policy never moves to another agent' })
  agent_id?: string;

  @OptionalIn(['active', 'disabled'], { default: 'active' })
  status?: 'active' | 'disabled';
}

export class ListPoliciesDto extends ListQueryDto {
  @OptionalUuid({ description: "Only this agent's policies" })
  agent_id?: string;
}
