import { Injectable } from '@nestjs/common';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { Pagination } from '../common/pagination';
import { presentPosting, PresentedPosting } from './posting.presenter';
import { PostingFilter, PostingsRepository } from './postings.repository';

/** Oldest first by posting id, so a consumer can follow the feed; the cursor is a posting id. */
const ORDER = { list: 'postings', sortColumn: 'p.id', sortType: 'bigint', idColumn: 'p.id', idType: 'bigint', direction: 'ASC' } as const;

@Injectable()
export class PostingsService {
  constructor(
    private readonly postings: PostingsRepository,
    private readonly pagination: Pagination,
  ) {}

  list(scope: LedgerScope, filter: PostingFilter, page: { cursor?: string; limit: number }): Promise<ListPage<PresentedPosting>> {
    return this.pagination.page(this.postings.listQuery(scope, filter), ORDER, scope, page, (p) => presentPosting(p));
  }

  async listForAccount(scope: LedgerScope, id: string, tags: Record<string, string> | undefined, page: { cursor?: string; limit: number }) {
    if (!(await this.postings.accountExists(scope, id))) throw LedgerErrors.error('not_found', { message: `No account ${id}` });
    return this.list(scope, { account: id, tags }, page);
  }
}
