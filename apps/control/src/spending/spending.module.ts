import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { SPENDING_FOLDING } from './spending-folding.worker';
import { SpendingController } from './spending.controller';
import { SpendingRepository } from './spending.repository';
import { SpendingService } from './spending.service';

@Module({
  imports: [WorkspacesModule],
  controllers: [SpendingController],
  providers: [SpendingRepository, SpendingService, SPENDING_FOLDING],
})
export class SpendingModule {}
