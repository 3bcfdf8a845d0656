import { Get, Param, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { AccountPostingsQuery, ListPostingsQuery } from './dto/posting-queries';
import { PostingResponse } from './dto/posting.response';
import { PostingsService } from './postings.service';

@LedgerApiController('postings', 'Postings')
export class PostingsController {
  constructor(private readonly postings: PostingsService) {}

  @Get()
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'All postings of the ledger in id order; limit default 100, max 500' })
  @ApiEnveloped(PostingResponse, { list: true })
  list(@CurrentLedger() ledger: LedgerScope, @Query() q: ListPostingsQuery) {
    const filter = {
      account: q.account,
      reconciled: q.reconciled === undefined ? undefined : q.reconciled === 'true',
      beforeValueDate: q.before_value_date ? new Date(q.before_value_date) : undefined,
    };
    return this.postings.list(ledger, filter, q);
  }
}

@LedgerApiController('accounts', 'Postings')
export class AccountPostingsController {
  constructor(private readonly postings: PostingsService) {}

  @Get(':id/postings')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: "An account's postings in id order, filtered by tags[k]=v; limit default 100, max 500" })
  @ApiEnveloped(PostingResponse, { list: true })
  list(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() q: AccountPostingsQuery) {
    return this.postings.listForAccount(ledger, id, q.tags, q);
  }
}
