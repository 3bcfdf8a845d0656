import { Module } from '@nestjs/common';
import { IdentityGuard } from './identity.guard';
import { IdentityTokenVerifier } from './identity-token.verifier';

@Module({
  providers: [IdentityTokenVerifier, IdentityGuard],
  exports: [IdentityTokenVerifier, IdentityGuard],
})
export class IdentityModule {}
