import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { ReservesController } from './reserves.controller';
import { ReservesRepository } from './reserves.repository';
import { ReservesService } from './reserves.service';

@Module({
  imports: [AuthModule, LedgersModule, EventsModule, AccountsModule, TransactionsModule],
  controllers: [ReservesController],
  providers: [ReservesRepository, ReservesService],
})
export class ReservesModule {}
