import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsObject, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { Mode, MODES } from '../../common/mode';

export class UpdateLedgerDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 1000 })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @Length(0, 1000)
  description?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Replaces the metadata' })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true, description: 'A timestamp archives; null restores' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsDateString()
  archived_at?: string | null;

  @ApiPropertyOptional({ enum: MODES, description: 'Fixed at creation: a different value is 409 immutable_field' })
  @IsOptional()
  @IsIn(MODES)
  mode?: Mode;
}
