import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { kindsTaking, RULE_EFFECTS, RULE_KINDS } from '@bursar/policy-rules';

/** A rule as stored and returned: the settings its kind needs, nothing else. */
export class PolicyRuleSchema {
  @ApiProperty() id: string;
  @ApiProperty({ enum: RULE_KINDS }) kind: string;
  @ApiProperty() rule_name: string;
  @ApiProperty({ type: [String], description: 'Action types it applies to: exact, `prefix.*` or `*`; empty applies to every action' }) action_types: string[];
  @ApiPropertyOptional({ type: 'integer', description: kindsTaking('max_cents').join(', ') }) max_cents?: number;
  @ApiPropertyOptional({ type: 'integer', description: kindsTaking('window_seconds').join(', ') }) window_seconds?: number;
  @ApiPropertyOptional({ type: 'integer', description: kindsTaking('max_actions').join(', ') }) max_actions?: number;
  @ApiPropertyOptional({ type: 'integer', description: kindsTaking('above_cents').join(', ') }) above_cents?: number;
  @ApiPropertyOptional({ type: [String], description: kindsTaking('allow').join(', ') }) allow?: string[];
  @ApiPropertyOptional({ enum: RULE_EFFECTS, description: kindsTaking('effect').join(', ') }) effect?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'condition: all_of / any_of / not / a field test' })
  when?: Record<string, unknown>;
}

/** Policy of reference s.7; `version` counts writes, `policy_version` is the digest a decision pins. */
export class PolicySchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) agent_id: string;
  @ApiProperty({ enum: ['active', 'disabled'] }) status: string;
  @ApiProperty({ enum: ['blocklist', 'allowlist'] }) mode: string;
  @ApiProperty({ type: 'integer', nullable: true }) per_transaction_cap_cents: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) velocity_cap_cents: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) velocity_window_seconds: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) monthly_cap_cents: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) approval_threshold_cents: number | null;
  @ApiProperty({ type: [String] }) counterparty_allowlist: string[];
  @ApiProperty({ type: [String], description: 'Policy module names' }) imports: string[];
  @ApiProperty({ type: [PolicyRuleSchema] }) rules: PolicyRuleSchema[];
  @ApiProperty({ type: 'integer' }) version: number;
  @ApiProperty({ example: 'pv_...' }) policy_version: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
