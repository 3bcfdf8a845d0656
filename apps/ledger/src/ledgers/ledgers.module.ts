import { Module } from '@nestjs/common';
import { LedgersRepository } from './ledgers.repository';
import { LedgersService } from './ledgers.service';

@Module({
  providers: [LedgersRepository, LedgersService],
  exports: [LedgersService],
})
export class LedgersModule {}
