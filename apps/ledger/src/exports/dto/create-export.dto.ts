import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsIn, IsOptional } from 'class-validator';
import { EXPORT_FORMATS, EXPORT_RESOURCES, ExportFormat, ExportResource } from '../export.record';

export class CreateExportDto {
  @ApiPropertyOptional({
    type: [String],
    enum: EXPORT_RESOURCES,
    description: 'What to export, one NDJSON file each; all of them when omitted. Repeats are written once.',
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(EXPORT_RESOURCES.length * 4)
  @IsIn(EXPORT_RESOURCES, { each: true, message: `each value in resources must be one of ${EXPORT_RESOURCES.join(', ')}` })
  resources?: ExportResource[];

  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'ndjson', description: 'One JSON object per line, as the API presents it' })
  @IsOptional()
  @IsIn(EXPORT_FORMATS, { message: `format must be one of ${EXPORT_FORMATS.join(', ')}` })
  format?: ExportFormat;
}
