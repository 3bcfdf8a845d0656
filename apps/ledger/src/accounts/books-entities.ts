import { AccountTemplateEntity } from '../account-templates/account-template.entity';
import { PeriodCloseEntity } from '../periods/period-close.entity';
import { PostingEntity } from '../postings/posting.entity';
import { TransactionEntity } from '../transactions/transaction.entity';
import { AccountEntity } from './account.entity';

/** The entities of the books (templates, accounts, transactions, postings, period closes). */
export const BOOKS_ENTITIES = [AccountTemplateEntity, AccountEntity, TransactionEntity, PostingEntity, PeriodCloseEntity];
