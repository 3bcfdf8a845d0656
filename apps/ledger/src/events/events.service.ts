import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { EntityManager } from 'typeorm';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ListOrder, PageRequest, Pagination } from '../common/pagination';
import { EventRecord, presentEvent } from './event.record';
import { EventFilter, EventsRepository } from './events.repository';

const ORDER: ListOrder = { list: 'events', sortColumn: 'seq', sortType: 'bigint', idColumn: 'seq', idType: 'bigint', direction: 'DESC' };

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

  /** One page, newest first; fetches a row more than asked to know whether more follow. */
  async list(scope: LedgerScope, filter: EventFilter, page: PageRequest): Promise<ListPage<ReturnType<typeof presentEvent>>> {
    const beforeSeq = page.cursor === undefined ? undefined : this.pagination.decode(ORDER, scope, page.cursor).key;
    const rows = await this.events.list(scope, filter, { beforeSeq, limit: page.limit + 1 });
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1];
    const next = rows.length > page.limit ? this.pagination.encode(ORDER, scope, { key: last.seq, id: last.seq }) : null;
    const total = page.include_total === 'true' ? await this.events.count(scope, filter) : undefined;
    return new ListPage(data.map(presentEvent), next !== null, next, total);
  }

  async get(scope: LedgerScope, id: string): Promise<EventRecord> {
    const event = isUUID(id) ? await this.events.findById(scope, id) : null;
    if (!event) throw LedgerErrors.error('not_found', { message: `No event ${id}` });
    return event;
  }
}
