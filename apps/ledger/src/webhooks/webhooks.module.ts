import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { webhookDispatchProvider } from './webhook-dispatch.provider';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** Ledger webhook endpoints (reference s.11), their deliveries, and the relay that sends events to them. */
@Module({
  imports: [AuthModule, EventsModule, LedgersModule],
  controllers: [WebhookEndpointsController, WebhookDeliveriesController],
  providers: [
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    WebhookEndpointsService,
    WebhookDeliveriesService,
    webhookDispatchProvider,
  ],
})
export class WebhooksModule {}
