import { Global, Module } from '@nestjs/common';
import { ControlRateLimiter } from './control-rate-limiter';

/** Global so the authenticating guards can throttle in whichever module hosts their routes. */
@Global()
@Module({ providers: [ControlRateLimiter], exports: [ControlRateLimiter] })
export class RateLimitModule {}
