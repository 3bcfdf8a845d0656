import { Module } from '@nestjs/common';
import { AuthController } from './auth.controller';
import { IdentityGuard } from './identity.guard';
import { SignInClient } from './sign-in.client';
import { IdentityTokenVerifier } from './identity-token.verifier';

@Module({
  controllers: [AuthController],
  providers: [IdentityTokenVerifier, IdentityGuard, SignInClient],
  exports: [IdentityTokenVerifier, IdentityGuard],
})
export class IdentityModule {}
