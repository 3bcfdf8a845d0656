import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { AgentKeyGuard } from './agent-key.guard';
import { AgentKeyCacheModule } from './agent-key-cache.module';
import { AgentsController } from './agents.controller';
import { AgentsRepository } from './agents.repository';
import { AgentsService } from './agents.service';

@Module({
  imports: [WorkspacesModule, BillingModule, AgentKeyCacheModule],
  controllers: [AgentsController],
  providers: [AgentsRepository, AgentsService, AgentKeyGuard],
  exports: [AgentsRepository, AgentKeyGuard],
})
export class AgentsModule {}
