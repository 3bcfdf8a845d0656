import { Module } from '@nestjs/common';
import { AccountTemplatesModule } from '../account-templates/account-templates.module';
import { AuthModule } from '../auth/auth.module';
import { BalancesModule } from '../balances/balances.module';
import { EventsModule } from '../events/events.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { AccountsController } from './accounts.controller';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';

@Module({
  imports: [AuthModule, LedgersModule, EventsModule, BalancesModule, AccountTemplatesModule],
  controllers: [AccountsController],
  providers: [AccountsRepository, AccountsService],
  exports: [AccountsService],
})
export class AccountsModule {}
