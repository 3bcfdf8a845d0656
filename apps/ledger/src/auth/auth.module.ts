import { Module } from '@nestjs/common';
import { AccessTokenService } from './access-token.service';
import { BearerAuthGuard } from './bearer-auth.guard';

/** Access tokens: issued by the OAuth module, checked by @RequireScope on every other module's routes. */
@Module({
  providers: [AccessTokenService, BearerAuthGuard],
  exports: [AccessTokenService, BearerAuthGuard],
})
export class AuthModule {}
