import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsOptional, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { Nullable } from '@bursar/service-kit';

const RULES_DOC =
  'Rule objects: {kind, id?, rule_name?, action_types?, ...settings of the kind}. Kinds: cost_cap {max_cents}, ' +
  'spend_window {max_cents, window_seconds}, monthly_spend_cap {max_cents}, rate_limit {max_actions, window_seconds}, ' +
  'approval_threshold {above_cents}, action_allowlist {allow}, resource_allowlist {allow}, condition {when, effect?}. ' +
  'Invalid rules answer 422.';

export class CreatePolicyModuleDto {
  @ApiProperty({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' })
  @IsString()
  @Length(1, 100)
  @Matches(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: 'name must be lowercase words joined by hyphens' })
  name: string;

  @Nullable()
  @IsString()
  @Length(0, 2000)
  description?: string | null;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true }, description: RULES_DOC })
  @IsOptional()
  @IsArray()
  rules?: unknown[];
}

/** `name` is accepted and ignored: a module is addressed by its name, which never changes. */
export class UpdatePolicyModuleDto {
  @ApiPropertyOptional({ description: 'Ignored' })
  @IsOptional()
  @IsString()
  name?: string;

  @ApiPropertyOptional({ nullable: true })
  @ValidateIf((_, v) => v !== undefined && v !== null)
  @IsString()
  @Length(0, 2000)
  description?: string | null;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true }, description: RULES_DOC })
  @ValidateIf((_, v) => v !== undefined)
  @IsArray()
  rules?: unknown[];
}
