import { ApiProperty } from '@nestjs/swagger';
import { CsvMappingDto } from '../../statements/dto/csv-mapping.dto';
import { MATCH_STRATEGIES } from './source.dto';

/** Wire shape of a source (documentation only; presentSource builds it). */
export class SourceResponse {
  @ApiProperty({ enum: ['source'] }) object: 'source';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Lowercased, unique per ledger' }) name: string;
  @ApiProperty() kind: string;
  @ApiProperty({ type: 'string', nullable: true }) description: string | null;
  @ApiProperty({ description: 'Made by an inline reconciliation run; creating the name explicitly promotes it' }) implicit: boolean;
  @ApiProperty({ enum: MATCH_STRATEGIES }) default_strategy: string;
  @ApiProperty() default_window_seconds: number;
  @ApiProperty({ pattern: '^\\d+$' }) default_tolerance_minor_units: string;
  @ApiProperty({ type: 'string', nullable: true }) default_account_id: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Ledger account per statement account reference; balance checks use it before default_account_id',
  })
  account_map: Record<string, string>;
  @ApiProperty() inbound_enabled: boolean;
  @ApiProperty({ type: 'string', nullable: true, description: 'Push URL while the hosted inbound endpoint is enabled' }) inbound_url: string | null;
  @ApiProperty({ description: 'Connector syncs are dashboard-only; always false here' }) sync_enabled: boolean;
  @ApiProperty({ type: 'string', nullable: true }) sync_status: string | null;
  @ApiProperty({ type: 'string', nullable: true }) sync_error: string | null;
  @ApiProperty({ type: 'string', nullable: true }) connected_ref: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_synced_at: string | null;
  @ApiProperty({ type: CsvMappingDto, nullable: true, description: 'How CSV statement files of this source map onto entries' }) csv_mapping: CsvMappingDto | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
