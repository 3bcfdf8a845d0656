import { Global, Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { controlWebhookDispatchProvider } from './webhook-dispatch.provider';
import { ControlWebhookEndpointsController } from './webhook-endpoints.controller';
import { ControlWebhookEndpointsRepository } from './webhook-endpoints.repository';
import { ControlWebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookEventsRepository } from './webhook-events.repository';
import { WebhookEventsService } from './webhook-events.service';

/**
 * Control webhooks: endpoints per workspace, the events other modules emit, and the relay that
 * delivers them. Global because every module whose changes notify endpoints emits webhook events.
 */
@Global()
@Module({
  imports: [WorkspacesModule],
  controllers: [ControlWebhookEndpointsController],
  providers: [
    WebhookEventsRepository,
    WebhookEventsService,
    ControlWebhookEndpointsRepository,
    ControlWebhookEndpointsService,
    controlWebhookDispatchProvider,
  ],
  exports: [WebhookEventsService],
})
export class WebhooksModule {}
