import { applyDecorators, Controller, UseInterceptors } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { EnvelopeInterceptor } from './envelope.interceptor';

/** A controller under /ledger/v1 whose responses carry the ledger envelopes. */
export function LedgerApiController(path: string, tag: string) {
  return applyDecorators(Controller(`ledger/v1/${path}`), UseInterceptors(EnvelopeInterceptor), ApiTags(tag));
}
