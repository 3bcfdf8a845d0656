import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AgentKeyGuard } from './agent-key.guard';
import { AgentsController } from './agents.controller';
import { AgentsRepository } from './agents.repository';
import { AgentsService } from './agents.service';

@Module({
  imports: [WorkspacesModule, BillingModule],
  controllers: [AgentsController],
  providers: [AgentsRepository, AgentsService, AgentKeyGuard],
  exports: [AgentsRepository, AgentKeyGuard],
})
export class AgentsModule {}
