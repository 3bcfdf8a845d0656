import { ApiProperty } from '@nestjs/swagger';
import { MODES } from '../../common/mode';

/** Wire shape of a ledger (documentation only; presentLedger builds it). */
export class LedgerResponse {
  @ApiProperty({ enum: ['ledger'] }) object: 'ledger';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: MODES }) mode: string;
  @ApiProperty({ type: 'string', nullable: true }) description: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) archived_at: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
