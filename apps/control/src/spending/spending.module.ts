import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { SpendingFoldingService } from './spending-folding.service';
import { SpendingController } from './spending.controller';
import { SpendingRepository } from './spending.repository';
import { SpendingService } from './spending.service';

@Module({
  imports: [WorkspacesModule],
  controllers: [SpendingController],
  providers: [SpendingRepository, SpendingService, SpendingFoldingService],
})
export class SpendingModule {}
