import { Get, Param, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiEnveloped } from '../common/api-envelope.decorator';
import { LedgerApiController } from '../common/ledger-api-controller.decorator';
import { LedgerScope } from '../common/mode';
import { CurrentLedger } from '../ledgers/current-ledger.decorator';
import { EventResponse } from './dto/event.response';
import { ListEventsQuery } from './dto/list-events.query';
import { presentEvent } from './event.record';
import { EventsService } from './events.service';
import { parseSince } from './since';

@LedgerApiController('events', 'Events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequireScope('ledger:read')
  @ApiOperation({
    summary: 'The events tail: every state change of the ledger, newest first, or oldest first after a position (`after`)',
    description:
      'Events are served in the order they became visible: an event whose transaction is still committing is held back ' +
      '(the read waits up to 250 ms for transactions in flight when it arrived), so nothing ever appears behind a position ' +
      'already read. created_at is when the event was written, so the created_at of neighbours may be out of order by up to the length of a write transaction.',
  })
  @ApiEnveloped(EventResponse, { list: true })
  list(@CurrentLedger() ledger: LedgerScope, @Query() query: ListEventsQuery) {
    return this.events.list(ledger, { type: query.type, resourceId: query.resource_id, since: parseSince(query.since) }, query);
  }

  @Get(':id')
  @RequireScope('ledger:read')
  @ApiEnveloped(EventResponse)
  async get(@CurrentLedger() ledger: LedgerScope, @Param('id') id: string) {
    return presentEvent(await this.events.get(ledger, id));
  }
}
