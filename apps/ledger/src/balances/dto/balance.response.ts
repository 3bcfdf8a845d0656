import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const MINOR_UNITS = { pattern: '^-?\\d+$', description: 'Integer minor units, positive on the normal side' } as const;

/** Wire shape of an account balance (documentation only; presentBalance builds it). */
export class BalanceResponse {
  @ApiProperty({ enum: ['balance'] }) object: 'balance';
  @ApiProperty({ description: 'Account id' }) account: string;
  @ApiProperty() currency: string;
  @ApiProperty(MINOR_UNITS) posted: string;
  @ApiProperty(MINOR_UNITS) pending: string;
  @ApiProperty({ ...MINOR_UNITS, description: 'posted minus open pending outflows' }) available: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Only with ?at=' }) as_of?: string;
}
