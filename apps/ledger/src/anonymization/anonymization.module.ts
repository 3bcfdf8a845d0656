import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { AnonymizationController } from './anonymization.controller';
import { AnonymizationRepository } from './anonymization.repository';
import { AnonymizationService } from './anonymization.service';

/** POST /tenants/me/anonymize: the step-up erasure of a tenant's personal data. */
@Module({
  imports: [AuthModule, TransactionsModule],
  controllers: [AnonymizationController],
  providers: [AnonymizationRepository, AnonymizationService],
})
export class AnonymizationModule {}
