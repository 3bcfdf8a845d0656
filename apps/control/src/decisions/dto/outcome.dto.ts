import { OptionalText } from '@bursar/service-kit';

export class CompleteIntentDto {
  @OptionalText(1, 200, { description: 'The ledger transaction that recorded the settlement, if any' })
  ledger_transaction_id?: string;
}

export class FailIntentDto {
  @OptionalText(1, 500, { default: 'execution_failed', description: 'Stored as failure_reason' })
  reason?: string;
}
