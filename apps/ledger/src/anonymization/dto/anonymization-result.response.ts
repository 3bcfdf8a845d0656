import { ApiProperty } from '@nestjs/swagger';

/** Wire shape of an anonymization run (documentation only; presentAnonymization builds it). */
export class AnonymizationResultResponse {
  @ApiProperty({ enum: ['anonymization_result'] }) object: 'anonymization_result';
  @ApiProperty({ format: 'uuid' }) anonymization_id: string;
  @ApiProperty({ enum: ['completed'], description: 'Runs synchronously: the erasure has committed when this answers' })
  status: 'completed';
  @ApiProperty({ format: 'date-time' }) anonymized_at: string;
  @ApiProperty({ type: 'string', nullable: true }) reason: string | null;
}
