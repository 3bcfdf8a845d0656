import { validatorsOf, Validators } from '../common/preconditions';
import { LedgerEntity } from './ledger.entity';

export function presentLedger(ledger: LedgerEntity) {
  return {
    object: 'ledger' as const,
    id: ledger.id,
    name: ledger.name,
    mode: ledger.mode,
    description: ledger.description,
    archived_at: ledger.archivedAt?.toISOString() ?? null,
    metadata: ledger.metadata,
    created_at: ledger.createdAt.toISOString(),
    updated_at: ledger.updatedAt.toISOString(),
  };
}

export function ledgerValidators(ledger: LedgerEntity): Validators {
  return validatorsOf(presentLedger(ledger), ledger.updatedAt);
}
