import { ApiProperty } from '@nestjs/swagger';
import { EXPORT_FORMATS, EXPORT_RESOURCES } from '../export.record';

/** Wire shape of an export (documentation only; presentExport builds it). */
export class ExportResponse {
  @ApiProperty({ enum: ['export'] }) object: 'export';
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['pending', 'running', 'ready', 'failed'] }) status: string;
  @ApiProperty({ enum: EXPORT_FORMATS }) format: string;
  @ApiProperty({ type: [String], enum: EXPORT_RESOURCES }) resources: string[];
  @ApiProperty({
    type: [String],
    description:
      'Signed links, one per resource in resources order, valid until expires_at with no bearer token; ' +
      'empty unless the export is ready and unexpired',
  })
  download_urls: string[];
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the download links stop working (ready exports)' })
  expires_at: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why a failed export failed' }) error_message: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
