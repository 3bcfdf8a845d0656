import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Wire shape of a posting (documentation only; presentPosting builds it). */
export class PostingResponse {
  @ApiProperty({ enum: ['posting'] }) object: 'posting';
  @ApiProperty({ type: 'integer', format: 'int64' }) id: number;
  @ApiProperty({ format: 'uuid', description: 'Transaction id' }) transaction: string;
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'object', properties: { object: { type: 'string' }, id: { type: 'string' }, type: { type: 'string' }, currency: { type: 'string' } } }],
    description: 'Account id, or {object, id, type, currency} with expand=postings.account',
  })
  account: string | object;
  @ApiProperty({ pattern: '^\\d+$', description: 'Integer minor units, always positive' }) amount: string;
  @ApiProperty() currency: string;
  @ApiProperty({ enum: ['debit', 'credit'] }) direction: string;
  @ApiProperty() pending: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) tags: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) value_date: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Pending leg voided by a reversal' }) voided_at: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) reconciled_at: string | null;
  @ApiProperty({ type: 'string', nullable: true }) reconciliation_reference: string | null;
  @ApiPropertyOptional({ pattern: '^-?\\d+$', description: 'Statements only: posted balance after this entry' }) running_balance?: string;
}
