import { Injectable } from '@nestjs/common';
import { LedgerErrors } from '../common/ledger-errors';
import { TenantScope } from '../common/mode';
import { LedgerEntity } from './ledger.entity';
import { LedgersRepository, NewLedger } from './ledgers.repository';

@Injectable()
export class LedgersService {
  constructor(private readonly ledgers: LedgersRepository) {}

  create(scope: TenantScope, ledger: NewLedger): Promise<LedgerEntity> {
    return this.ledgers.insert(scope, ledger);
  }

  /** A ledger of another organization or mode is reported absent, never forbidden. */
  async get(scope: TenantScope, id: string, param?: string): Promise<LedgerEntity> {
    const ledger = await this.ledgers.findById(scope, id);
    if (!ledger) throw LedgerErrors.error('not_found', { message: 'No such ledger', ...(param && { param }) });
    return ledger;
  }
}
