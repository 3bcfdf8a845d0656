import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsOptional, IsUUID } from 'class-validator';
import { NestedDto } from '@bursar/service-kit';
import { PolicyDraftDto } from '../../policies/dto/policy-write.dto';
import type { BacktestMode } from '../backtest-simulator';

export const BACKTEST_MODES: BacktestMode[] = ['sequential', 'independent'];

export class PolicyBacktestCreateDto {
  @ApiPropertyOptional({ format: 'uuid', description: "One agent's decisions; every agent of the workspace when absent" })
  @IsOptional()
  @IsUUID()
  agent_id?: string;

  @ApiProperty({ type: PolicyDraftDto, description: "The draft, as a policy preview takes it; it replaces every active policy of each agent" })
  @NestedDto(() => PolicyDraftDto)
  policy: PolicyDraftDto;

  @ApiProperty({ format: 'date-time', description: 'First decision time included' })
  @IsDateString({ strict: true })
  from: string;

  @ApiProperty({ format: 'date-time', description: 'End of the window (excluded); after `from`, at most 90 days later' })
  @IsDateString({ strict: true })
  to: string;

  @ApiPropertyOptional({ enum: BACKTEST_MODES, default: 'sequential' })
  @IsOptional()
  @IsIn(BACKTEST_MODES)
  mode?: BacktestMode;
}
