import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { EntityManager } from 'typeorm';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ListOrder, PageRequest, Pagination } from '../common/pagination';
import { EventRecord, presentEvent } from './event.record';
import { EventFilter, EventPage, EventPosition, EventsRepository } from './events.repository';

/**
 * Cursors hold an event's position (writing transaction id, seq). The list names differ from the
 * old seq-only cursors' (`events`), so one of those is refused rather than misread.
 */
const NEWEST_FIRST: ListOrder = { list: 'events.position', sortColumn: 'xid', sortType: 'xid8', idColumn: 'seq', idType: 'bigint', direction: 'DESC' };
const OLDEST_FIRST: ListOrder = { ...NEWEST_FIRST, list: 'events.tail', direction: 'ASC' };

/** A list request; `after` (an event id or a tail cursor) asks for the tail oldest first. */
export interface EventsPageRequest extends PageRequest {
  after?: string;
}

@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly pagination: Pagination,
  ) {}

  /**
   * Appends an event inside the caller's transaction (`manager`), so the event exists exactly when
   * the change it reports does. The webhook relay picks it up after commit.
   */
  record(
    manager: EntityManager,
    scope: LedgerScope,
    type: string,
    resourceId: string | null,
    data: object,
  ): Promise<EventRecord> {
    return this.events.insert(manager, scope, { type, resourceId, data });
  }

  /**
   * One page, newest first, or with `after` oldest first from just after that position. Either way
   * only events no later commit can land behind are served (see EventsRepository), so a client
   * that keeps reading after what it holds never misses one. Fetches a row more than asked to
   * know whether more follow.
   */
  async list(scope: LedgerScope, filter: EventFilter, page: EventsPageRequest): Promise<ListPage<ReturnType<typeof presentEvent>>> {
    if (page.after !== undefined && page.cursor !== undefined) {
      throw LedgerErrors.error('invalid_request', {
        message: 'Pass either after (tailing, oldest first) or cursor (newest first), not both',
        param: 'after',
      });
    }
    const order = page.after === undefined ? NEWEST_FIRST : OLDEST_FIRST;
    const from = page.after !== undefined ? await this.positionAfter(scope, page.after) : this.positionOf(order, scope, page.cursor);
    const request: EventPage = { direction: order === OLDEST_FIRST ? 'oldest_first' : 'newest_first', from, limit: page.limit + 1 };
    const rows = await this.events.list(scope, filter, request);
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1];
    const next = rows.length > page.limit ? this.pagination.encode(order, scope, { key: last.xid, id: last.seq }) : null;
    const total = page.include_total === 'true' ? await this.events.count(scope, filter) : undefined;
    return new ListPage(data.map(presentEvent), next !== null, next, total);
  }

  async get(scope: LedgerScope, id: string): Promise<EventRecord> {
    const event = isUUID(id) ? await this.events.findById(scope, id) : null;
    if (!event) throw LedgerErrors.error('not_found', { message: `No event ${id}` });
    return event;
  }

  private positionOf(order: ListOrder, scope: LedgerScope, cursor: string | undefined): EventPosition | undefined {
    if (cursor === undefined) return undefined;
    const { key, id } = this.pagination.decode(order, scope, cursor);
    return { xid: key, seq: id };
  }

  /** `after` names an event of this ledger by id, or is the `next_cursor` of an earlier tail page. */
  private async positionAfter(scope: LedgerScope, after: string): Promise<EventPosition> {
    const refused = () =>
      LedgerErrors.error('invalid_request', {
        message: 'after is neither the id of an event of this ledger nor a next_cursor of a tail page',
        param: 'after',
      });
    if (!isUUID(after)) {
      try {
        return this.positionOf(OLDEST_FIRST, scope, after) as EventPosition;
      } catch {
        throw refused();
      }
    }
    const event = await this.events.findById(scope, after);
    if (!event) throw refused();
    return { xid: event.xid, seq: event.seq };
  }
}
