import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { BalancesModule } from '../balances/balances.module';
import { EventsModule } from '../events/events.module';
import { ExternalTransactionsModule } from '../external-transactions/external-transactions.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { SourcesModule } from '../sources/sources.module';
import { StatementBodyMiddleware } from './statement-body.middleware';
import { StatementImportsRepository } from './statement-imports.repository';
import { SourceStatementsController, StatementsController } from './statements.controller';
import { StatementsService } from './statements.service';

/** Bank statement files (camt.053, MT940, BAI2, OFX, CSV) imported into a source's external transactions. */
@Module({
  imports: [AuthModule, BalancesModule, EventsModule, LedgersModule, SourcesModule, ExternalTransactionsModule],
  controllers: [SourceStatementsController, StatementsController],
  providers: [StatementImportsRepository, StatementsService],
  exports: [StatementsService],
})
export class StatementsModule implements NestModule {
  configure(consumer: MiddlewareConsumer) {
    consumer.apply(StatementBodyMiddleware).forRoutes({ path: 'ledger/v1/sources/:id/statements', method: RequestMethod.POST });
  }
}
