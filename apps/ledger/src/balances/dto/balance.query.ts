import { OptionalInt } from '@bursar/service-kit';
import { OptionalInstant } from '../../common/is-instant.decorator';
import { LedgerSelectionQuery } from '../../common/pagination';

export class BalanceQuery extends LedgerSelectionQuery {
  @OptionalInstant('Balance from postings with value_date at or before this instant')
  at?: string;
}

export class StatementQuery extends LedgerSelectionQuery {
  @OptionalInstant('Inclusive lower bound on value_date (default: the beginning)')
  from?: string;

  @OptionalInstant('Exclusive upper bound on value_date (default now)')
  to?: string;

  @OptionalInt(1, 5000, { default: 500 })
  limit = 500;
}
