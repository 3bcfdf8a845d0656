import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { OauthClientsModule } from '../oauth-clients/oauth-clients.module';
import { OauthController } from './oauth.controller';
import { OauthService } from './oauth.service';

@Module({
  imports: [AuthModule, OauthClientsModule],
  controllers: [OauthController],
  providers: [OauthService],
})
export class OauthModule {}
