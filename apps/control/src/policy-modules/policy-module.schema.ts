import { ApiProperty } from '@nestjs/swagger';
import { PolicyRuleSchema } from '../policies/policy.schema';

/** A named rule set policies import. */
export class PolicyModuleSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Unique in the workspace; the path addresses it' }) name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: [PolicyRuleSchema] }) rules: PolicyRuleSchema[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
