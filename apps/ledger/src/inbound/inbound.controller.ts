import { Body, Delete, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { RawBodyRequest } from '@nestjs/common';
import type { Request } from 'express';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { EnableInboundDto, InboundEndpointResponse, InboundResultResponse } from './dto/inbound.dto';
import { InboundEndpoint, InboundService } from './inbound.service';

function presentEndpoint(endpoint: InboundEndpoint) {
  return {
    object: 'inbound_endpoint' as const,
    source_id: endpoint.source.id,
    token: endpoint.token,
    url: endpoint.url,
    ...(endpoint.secret !== undefined && { secret: endpoint.secret }),
    enabled: endpoint.source.inboundEnabled,
  };
}

@LedgerApiController('sources', 'Inbound push')
export class InboundEndpointsController {
  constructor(private readonly inbound: InboundService) {}

  @Post(':id/inbound')
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({
    summary:
      "Turn on the source's hosted push URL; the signing secret is returned only when minted (first call, or rotate: true). " +
      'A repeat call keeps URL and secret',
  })
  @ApiEnveloped(InboundEndpointResponse, { status: 201 })
  async enable(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: EnableInboundDto) {
    return presentEndpoint(await this.inbound.enable(ledger, id, body.rotate === true));
  }

  @Delete(':id/inbound')
  @HttpCode(200)
  @RequireScope('ledger:write')
  @Idempotent()
  @ApiOperation({ summary: 'Turn the push URL off; pushes to it answer 404 and a later enable mints a new URL and secret' })
  @ApiEnveloped(InboundEndpointResponse)
  async disable(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return presentEndpoint(await this.inbound.disable(ledger, id));
  }
}

/** The hosted push route: no bearer token and no per-client rate limit; the URL's token and the HMAC signature authenticate it. */
@LedgerApiController('inbound', 'Inbound push')
export class InboundPushController {
  constructor(private readonly inbound: InboundService) {}

  @Post('sources/:token')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Push external transactions to a source: one item, or {items: [...]} (1-1000). Signed with ' +
      '<brand>-Inbound-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")> (t within 300 s; ' +
      'every v1 is tried). Rows land as by ingest (a redelivery is replayed, harmless); matching never runs',
  })
  @ApiHeader({ name: 'Bursar-Inbound-Signature', required: true, description: 'The brand prefix is the deployment WEBHOOK_BRAND' })
  @ApiBody({ schema: { type: 'object', description: 'One ingest item, or {items: [ingest items]}' } })
  @ApiEnveloped(InboundResultResponse)
  @ApiResponse({ status: 401, description: 'unauthorized: missing, malformed, wrong or stale signature' })
  @ApiResponse({ status: 404, description: 'not_found: unknown or disabled token (checked before the signature)' })
  @ApiResponse({ status: 422, description: 'invalid_request: no items, or more than 1000' })
  async push(@Param('token') token: string, @Req() req: RawBodyRequest<Request>, @Body() body: unknown) {
    const header = req.headers[this.inbound.signatureHeader.toLowerCase()];
    const signature = Array.isArray(header) ? header.join(',') : header;
    const { scope, result } = await this.inbound.push(token, req.rawBody ?? Buffer.alloc(0), signature, body);
    req.livemode = scope.mode === 'live';
    return { object: 'inbound_result' as const, ...result };
  }
}
