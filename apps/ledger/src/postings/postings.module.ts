import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { AccountPostingsController, PostingsController } from './postings.controller';
import { PostingsRepository } from './postings.repository';
import { PostingsService } from './postings.service';

@Module({
  imports: [AuthModule, LedgersModule],
  controllers: [PostingsController, AccountPostingsController],
  providers: [PostingsRepository, PostingsService],
})
export class PostingsModule {}
