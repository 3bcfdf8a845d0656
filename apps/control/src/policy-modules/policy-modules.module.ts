import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { PolicyModulesController } from './policy-modules.controller';
import { PolicyModulesRepository } from './policy-modules.repository';
import { PolicyModulesService } from './policy-modules.service';

@Module({
  imports: [WorkspacesModule],
  controllers: [PolicyModulesController],
  providers: [PolicyModulesRepository, PolicyModulesService],
  exports: [PolicyModulesRepository],
})
export class PolicyModulesModule {}
