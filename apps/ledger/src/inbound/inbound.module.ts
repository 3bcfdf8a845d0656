import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ExternalTransactionsModule } from '../external-transactions/external-transactions.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { SourcesModule } from '../sources/sources.module';
import { InboundEndpointsController, InboundPushController } from './inbound.controller';
import { InboundRepository } from './inbound.repository';
import { InboundService } from './inbound.service';

/** Hosted inbound push (reference s.12): a source's signed push URL, and the route that takes the pushes. */
@Module({
  imports: [AuthModule, LedgersModule, SourcesModule, ExternalTransactionsModule],
  controllers: [InboundEndpointsController, InboundPushController],
  providers: [InboundRepository, InboundService],
})
export class InboundModule {}
