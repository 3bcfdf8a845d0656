import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TrialBalanceReport } from '../../reports/dto/report.responses';

/** Wire shape of a period close (documentation only; presentPeriodClose builds it). */
export class PeriodCloseResponse {
  @ApiProperty({ enum: ['period_close'] }) object: 'period_close';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) period_start: string;
  @ApiProperty({ format: 'date-time' }) period_end: string;
  @ApiProperty() closed_by_label: string;
  @ApiProperty({ type: 'string', nullable: true }) note: string | null;
  @ApiProperty() forced: boolean;
  @ApiProperty({ type: 'string', nullable: true }) forced_by_label: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) forced_at: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) reopened_at: string | null;
  @ApiProperty({ type: 'string', nullable: true }) reopened_by_label: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiPropertyOptional({ type: TrialBalanceReport, description: 'Frozen at period_end; only on create and GET by id' })
  trial_balance?: TrialBalanceReport;
}
