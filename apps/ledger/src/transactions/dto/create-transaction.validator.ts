import { fastValidator, field } from '@bursar/service-kit';
import { ACCOUNT_ID_PATTERN } from '../../accounts/account-kinds';
import { CURRENCY_PATTERN } from '../../accounts/currencies';
import { isMinorUnits } from '../../balances/money';
import { CreateTransactionDto, isStringMap, PostingInputDto } from './create-transaction.dto';

/** A posting of the common shape (rules as PostingInputDto's decorators). */
const acceptPosting = fastValidator(PostingInputDto, {
  account: field.pattern(ACCOUNT_ID_PATTERN),
  amount: field.satisfies((v) => isMinorUnits(v, 1n)),
  currency: field.pattern(CURRENCY_PATTERN),
  direction: field.oneOf('debit', 'credit'),
  pending: field.optional(field.boolean),
  tags: field.optional(field.satisfies(isStringMap)),
});

/**
 * The fast path of POST /transactions' body: the common shape only. value_date, external_refs and
 * conditions, like anything else unusual, are left to the full validation.
 */
export const acceptCreateTransaction = fastValidator(CreateTransactionDto, {
  postings: field.list(acceptPosting, 2, 250),
  metadata: field.optional(field.object),
  dry_run: field.optional(field.boolean),
});
