import { ApiProperty } from '@nestjs/swagger';

/** The reference calls this record Session. */
export class BudgetSchema {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) agent_id: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) parent_budget_id: string | null;
  @ApiProperty({ type: 'integer' }) budget_cents: number;
  @ApiProperty({ type: 'integer' }) spent_cents: number;
  @ApiProperty({ type: 'integer' }) remaining_cents: number;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ enum: ['active', 'exhausted', 'closed'] }) status: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
