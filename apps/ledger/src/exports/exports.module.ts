import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgersModule } from '../ledgers/ledgers.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { ExportFilesController } from './export-files.controller';
import { ExportWriter } from './export.writer';
import { ExportsController } from './exports.controller';
import { ExportsRepository } from './exports.repository';
import { ExportsService } from './exports.service';
import { ExportsWorker } from './exports.worker';
import { exportStorageProviders } from './storage/export-storage.provider';

/** POST/GET /exports: NDJSON exports of a ledger, written in the background to local or S3 storage. */
@Module({
  imports: [AuthModule, LedgersModule, TransactionsModule],
  controllers: [ExportsController, ExportFilesController],
  providers: [ExportsRepository, ExportsService, ExportWriter, ExportsWorker, ...exportStorageProviders],
})
export class ExportsModule {}
