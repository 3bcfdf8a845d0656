import { Get, Param, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { BalancesService } from './balances.service';
import { BalanceQuery, StatementQuery } from './dto/balance.query';
import { BalanceResponse } from './dto/balance.response';

@LedgerApiController('accounts', 'Balances')
export class BalancesController {
  constructor(private readonly balances: BalancesService) {}

  @Get(':id/balance')
  @RequireScope('ledger:read')
  @ApiOperation({
    summary: 'Posted, pending and available balance (available = posted minus open pending outflows); ?at= by value_date',
  })
  @ApiEnveloped(BalanceResponse)
  balance(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() query: BalanceQuery) {
    return this.balances.balance(ledger, id, query.at ? new Date(query.at) : undefined);
  }

  @Get(':id/category_balance')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'Balance of the account and all its descendants by parent_id (422 when currencies mix)' })
  categoryBalance(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return this.balances.categoryBalance(ledger, id);
  }

  @Get(':id/statement')
  @RequireScope('ledger:read')
  @ApiOperation({ summary: 'Entries of [from, to) by value_date with running balances, opening and closing balances' })
  statement(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Query() query: StatementQuery) {
    const from = query.from ? new Date(query.from) : null;
    return this.balances.statement(ledger, id, from, query.to ? new Date(query.to) : new Date(), query.limit);
  }
}
