import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsBoolean, IsObject, IsOptional } from 'class-validator';

export class UpdateTransactionDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Values are stored as strings: numbers and booleans as written, objects, arrays and null as their JSON text',
  })
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

/** The reference (R2) stores PATCHed metadata values as strings, so clients read back what the SDK types promise. */
export function metadataAsStrings(metadata: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(metadata).map(([k, v]) => [k, typeof v === 'string' ? v : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)]),
  );
}
