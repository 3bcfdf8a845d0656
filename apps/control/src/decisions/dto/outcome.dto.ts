import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';

export class CompleteIntentDto {
  @ApiPropertyOptional({ description: 'The ledger transaction that recorded the settlement, if any' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  ledger_transaction_id?: string;
}

export class FailIntentDto {
  @ApiPropertyOptional({ default: 'execution_failed', description: 'Stored as failure_reason' })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  reason?: string;
}
