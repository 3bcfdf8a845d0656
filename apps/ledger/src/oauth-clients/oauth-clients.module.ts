import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { OauthClientsController } from './oauth-clients.controller';
import { OauthClientsRepository } from './oauth-clients.repository';
import { OauthClientsService } from './oauth-clients.service';

@Module({
  imports: [AuthModule, EventsModule, LedgersModule],
  controllers: [OauthClientsController],
  providers: [OauthClientsRepository, OauthClientsService],
  exports: [OauthClientsService],
})
export class OauthClientsModule {}
