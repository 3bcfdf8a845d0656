import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';
import { LedgerScope } from '../common/mode';

@Injectable()
export class ReservesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The restricted (reserve) account `id`, or null when absent or a standard account. */
  findReserve(scope: LedgerScope, id: string): Promise<AccountEntity | null> {
    return this.dataSource.manager.getRepository(AccountEntity).findOneBy({ ledgerId: scope.ledgerId, id, accountKind: 'restricted' });
  }
}
