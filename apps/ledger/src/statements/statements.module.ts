import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { Pagination } from '../common/pagination';
import { LedgerSettings } from '../config/ledger.settings';
import { LedgersModule } from '../ledgers/ledgers.module';
import { StatementBodyMiddleware } from './statement-body.middleware';
import { SourceStatementsController, StatementsController } from './statements.controller';
import { createStatementsService } from './statements.factory';
import { StatementsService } from './statements.service';

/** Bank statement files (camt.053, MT940, BAI2, OFX, CSV) imported into a source's external transactions. */
@Module({
  imports: [AuthModule, LedgersModule],
  controllers: [SourceStatementsController, StatementsController],
  // Built by the factory the operator CLI also uses, so both run the same wiring.
  providers: [{ provide: StatementsService, useFactory: createStatementsService, inject: [getDataSourceToken(), LedgerSettings, Pagination] }],
  exports: [StatementsService],
})
export class StatementsModule implements NestModule {
  configure(consumer: MiddlewareConsumer) {
    consumer.apply(StatementBodyMiddleware).forRoutes({ path: 'ledger/v1/sources/:id/statements', method: RequestMethod.POST });
  }
}
