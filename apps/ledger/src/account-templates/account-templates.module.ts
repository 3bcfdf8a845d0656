import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { AccountTemplatesController } from './account-templates.controller';
import { AccountTemplatesRepository } from './account-templates.repository';
import { AccountTemplatesService } from './account-templates.service';

@Module({
  imports: [AuthModule, LedgersModule],
  controllers: [AccountTemplatesController],
  providers: [AccountTemplatesRepository, AccountTemplatesService],
  exports: [AccountTemplatesService],
})
export class AccountTemplatesModule {}
