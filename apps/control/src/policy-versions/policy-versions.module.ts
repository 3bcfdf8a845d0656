import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { PolicyVersionsController } from './policy-versions.controller';
import { PolicyVersionsRepository } from './policy-versions.repository';
import { PolicyVersionsService } from './policy-versions.service';

@Module({
  imports: [WorkspacesModule],
  controllers: [PolicyVersionsController],
  providers: [PolicyVersionsRepository, PolicyVersionsService],
  exports: [PolicyVersionsService],
})
export class PolicyVersionsModule {}
