import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { RequireScope } from '../auth/require-scope.decorator';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { PeriodCloseResponse } from './dto/period-close.response';
import { CreatePeriodCloseDto, ListPeriodClosesQuery, ReopenPeriodDto } from './dto/period-close.dto';
import { presentPeriodClose } from './period-close.presenter';
import { PeriodsService } from './periods.service';

@LedgerApiController('period_closes', 'Periods')
export class PeriodsController {
  constructor(private readonly periods: PeriodsService) {}

  @Post()
  @RequireScope('ledger:period_close')
  @ApiEnveloped(PeriodCloseResponse, { status: 201 })
  @ApiOperation({
    summary:
      'Close [period_start, period_end): trial balance frozen at period_end; 422 period_close_imbalanced unless force; 409 already_exists on overlap',
  })
  async close(@CurrentLedger() ledger: LedgerScope, @Body() body: CreatePeriodCloseDto) {
    return presentPeriodClose(await this.periods.close(ledger, body), true);
  }

  @Get()
  @RequireScope('ledger:read')
  @ApiEnveloped(PeriodCloseResponse, { list: true })
  @ApiOperation({ summary: 'All closes, newest period first; never paginates' })
  async list(@CurrentLedger() ledger: LedgerScope, @Query() query: ListPeriodClosesQuery) {
    const closes = await this.periods.list(ledger, query.include_reopened !== 'false');
    return new ListPage(closes.map((c) => presentPeriodClose(c, false)));
  }

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiEnveloped(PeriodCloseResponse)
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return presentPeriodClose(await this.periods.get(ledger, id), true);
  }

  @Post(':id/reopen')
  @HttpCode(200)
  @RequireScope('ledger:period_close')
  @ApiEnveloped(PeriodCloseResponse)
  @ApiOperation({ summary: 'Reopen a closed period (use sparingly; reports signed for it become invalid)' })
  async reopen(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string, @Body() body: ReopenPeriodDto) {
    return presentPeriodClose(await this.periods.reopen(ledger, id, body.reopened_by_label), false);
  }
}
