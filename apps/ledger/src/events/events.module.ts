import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { EventsTailMetrics } from './events-tail.metrics';

/** The events log. Feature modules import it to call EventsService.record in their transactions. */
@Module({
  imports: [AuthModule, LedgersModule],
  controllers: [EventsController],
  providers: [EventsRepository, EventsService, EventsTailMetrics],
  exports: [EventsService],
})
export class EventsModule {}
