import { Module } from '@nestjs/common';
import { DecisionsModule } from '../decisions/decisions.module';
import { PoliciesModule } from '../policies/policies.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { PolicyPreviewsController } from './policy-previews.controller';
import { PolicyPreviewsService } from './policy-previews.service';

@Module({
  imports: [WorkspacesModule, DecisionsModule, PoliciesModule],
  controllers: [PolicyPreviewsController],
  providers: [PolicyPreviewsService],
})
export class PolicyPreviewsModule {}
