import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { SourcesController } from './sources.controller';
import { SourcesRepository } from './sources.repository';
import { SourcesService } from './sources.service';

/** Sources of external transactions (reference s.12); reconciliation runs and inbound push build on them. */
@Module({
  imports: [AuthModule, LedgersModule],
  controllers: [SourcesController],
  providers: [SourcesRepository, SourcesService],
  exports: [SourcesService],
})
export class SourcesModule {}
