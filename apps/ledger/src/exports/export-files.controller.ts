import { Controller, Get, Param, Query, StreamableFile } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ExportsService } from './exports.service';

/**
 * Downloads behind the ledger's own signed links (local export storage). Outside the envelope
 * (the answer is the file) and outside bearer authentication (the link's signature is the credential).
 */
@Controller('ledger/v1/exports')
@ApiTags('Exports')
export class ExportFilesController {
  constructor(private readonly exports: ExportsService) {}

  @Get(':id/files/:resource')
  @ApiOperation({
    summary: "Download one file of a ready export through its signed link (from the export's download_urls)",
    description: 'No bearer token: the signature authenticates. A tampered, malformed or expired link is 403 forbidden.',
  })
  @ApiQuery({ name: 'ledger_id', description: "The export's ledger, as the link carries it" })
  @ApiQuery({ name: 'expires', description: 'Unix seconds after which the link is refused' })
  @ApiQuery({ name: 'signature', description: 'HMAC-SHA256 over the ledger, export, resource and expiry' })
  @ApiOkResponse({ description: 'The NDJSON file', content: { 'application/x-ndjson': { schema: { type: 'string' } } } })
  @ApiForbiddenResponse({ description: 'forbidden: the link is invalid or has expired' })
  @ApiNotFoundResponse({ description: 'not_found: no such ready export file' })
  async download(
    @Param('id') id: string,
    @Param('resource') resource: string,
    @Query('ledger_id') ledgerId: string,
    @Query('expires') expires: string,
    @Query('signature') signature: string,
  ): Promise<StreamableFile> {
    const file = await this.exports.open({ ledgerId, exportId: id, resource, expires, signature });
    return new StreamableFile(file.body, { type: 'application/x-ndjson', disposition: `attachment; filename="${file.resource}.ndjson"` });
  }
}
