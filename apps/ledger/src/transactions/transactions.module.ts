import { Module } from '@nestjs/common';
import { registerFastValidator } from '@bursar/service-kit';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { BooksEngine } from './books-engine';
import { BulkTransactionsService } from './bulk-transactions.service';
import { CorrectionsService } from './corrections.service';
import { CreateTransactionDto } from './dto/create-transaction.dto';
import { PostingIdPool } from './posting-id-pool';
import { acceptCreateTransaction } from './dto/create-transaction.validator';
import { TransactionBatcher } from './transaction-batcher';
import { TransactionsController } from './transactions.controller';
import { TransactionsRepository } from './transactions.repository';
import { TransactionsService } from './transactions.service';

@Module({
  imports: [AuthModule, LedgersModule, EventsModule],
  controllers: [TransactionsController],
  providers: [TransactionsRepository, PostingIdPool, BooksEngine, TransactionBatcher, TransactionsService, CorrectionsService, BulkTransactionsService],
  exports: [TransactionsRepository, TransactionsService],
})
export class TransactionsModule {
  constructor() {
    registerFastValidator(CreateTransactionDto, acceptCreateTransaction);
  }
}
