import { ApiProperty } from '@nestjs/swagger';
import { PolicyRuleSchema } from '../policies/policy.schema';

/** One policy as a decision read it: typed columns desugared into rules, module rules resolved. */
export class PolicySnapshotSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['blocklist', 'allowlist'] }) mode: string;
  @ApiProperty({ type: [String], description: 'Policy module names' }) imports: string[];
  @ApiProperty({ type: [PolicyRuleSchema], description: 'The modules\' rules as they were when the version was first used' }) imported_rules: PolicyRuleSchema[];
  @ApiProperty({ type: [PolicyRuleSchema] }) rules: PolicyRuleSchema[];
}

/** An immutable, content-addressed policy version: `id` is the digest of `rules` (see docs/receipts.md). */
export class PolicyVersionSchema {
  @ApiProperty({ enum: ['policy_version'] }) object: string;
  @ApiProperty({ example: 'pv_...', description: '"pv_" + SHA-256 hex of the RFC 8785 canonical JSON of rules' }) id: string;
  @ApiProperty({ type: [PolicySnapshotSchema], description: "The agent's active policies, oldest first, as decisions read them" }) rules: PolicySnapshotSchema[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time', description: 'When the first decision under this version was made' }) first_used_at: string;
}
