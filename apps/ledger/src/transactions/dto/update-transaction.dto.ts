import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsBoolean, IsObject, IsOptional } from 'class-validator';

export class UpdateTransactionDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ default: true, description: 'true merges into the current metadata; false replaces it' })
  @IsOptional()
  @IsBoolean()
  merge?: boolean;

  /** Fixed at creation: sending any is 409 immutable_field. */
  @Allow() postings?: unknown;
  @Allow() idempotency_key?: unknown;
  @Allow() reverses?: unknown;
  @Allow() reversed_by?: unknown;
  @Allow() value_date?: unknown;
  @Allow() external_refs?: unknown;
}

export const IMMUTABLE_TRANSACTION_FIELDS = ['postings', 'idempotency_key', 'reverses', 'reversed_by', 'value_date', 'external_refs'] as const;
