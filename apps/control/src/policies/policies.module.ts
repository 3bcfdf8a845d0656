import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { PolicyModulesModule } from '../policy-modules/policy-modules.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { PoliciesController } from './policies.controller';
import { PoliciesRepository } from './policies.repository';
import { PoliciesService } from './policies.service';
import { PolicyEngine } from './policy-engine.service';

@Module({
  imports: [WorkspacesModule, AgentsModule, PolicyModulesModule],
  controllers: [PoliciesController],
  providers: [PoliciesRepository, PoliciesService, PolicyEngine],
  exports: [PoliciesService, PolicyEngine],
})
export class PoliciesModule {}
