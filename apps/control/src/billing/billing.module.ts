import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { BillingController } from './billing.controller';
import { BillingProviderClient } from './billing-provider.client';
import { BillingWebhooksController } from './billing-webhooks.controller';
import { BillingWebhooksService } from './billing-webhooks.service';
import { BillingRepository } from './billing.repository';
import { BillingService } from './billing.service';

/** Plans, subscriptions and provider webhooks. Exports the overview so other modules can read entitlements. */
@Module({
  imports: [WorkspacesModule],
  controllers: [BillingController, BillingWebhooksController],
  providers: [BillingRepository, BillingProviderClient, BillingService, BillingWebhooksService],
  exports: [BillingService],
})
export class BillingModule {}
