import { Global, Module } from '@nestjs/common';
import { LedgerRateLimits } from './ledger-rate-limits.service';

/** Global because BearerAuthGuard, instantiated in every feature module, takes from it. */
@Global()
@Module({ providers: [LedgerRateLimits], exports: [LedgerRateLimits] })
export class RateLimitModule {}
