import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { ReportsModule } from '../reports/reports.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { PeriodsController } from './periods.controller';
import { PeriodsRepository } from './periods.repository';
import { PeriodsService } from './periods.service';

@Module({
  imports: [AuthModule, LedgersModule, EventsModule, ReportsModule, TransactionsModule],
  controllers: [PeriodsController],
  providers: [PeriodsRepository, PeriodsService],
})
export class PeriodsModule {}
