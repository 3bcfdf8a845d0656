import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { Mode, MODES } from '../../common/mode';
import { Nullable } from '@bursar/service-kit';
import { OptionalMetadata } from '../../common/optional-metadata.decorator';

export class UpdateLedgerDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @Nullable({ type: 'string', maxLength: 1000 })
  @IsString()
  @Length(0, 1000)
  description?: string | null;

  @OptionalMetadata('Replaces the metadata')
  metadata?: Record<string, unknown>;

  @Nullable({ type: 'string', format: 'date-time', description: 'A timestamp archives; null restores' })
  @IsDateString()
  archived_at?: string | null;

  @ApiPropertyOptional({ enum: MODES, description: 'Fixed at creation: a different value is 409 immutable_field' })
  @IsOptional()
  @IsIn(MODES)
  mode?: Mode;
}
