import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DeliveryStatus, presentWebhookDelivery, WebhookDeliveryRecord } from '@bursar/queue';
import { ListPage } from '../common/envelope.interceptor';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { ListOrder, PageRequest, Pagination } from '../common/pagination';
import { presentEvent } from '../events/event.record';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointRecord } from './webhook-endpoint.record';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookErrors } from './webhook-errors';

const ORDER: ListOrder = {
  list: 'webhook_deliveries',
  sortColumn: 'created_at',
  sortType: 'timestamptz',
  idColumn: 'id',
  idType: 'uuid',
  direction: 'DESC',
};

export const TEST_EVENT_TYPE = 'webhook.test';

@Injectable()
export class WebhookDeliveriesService {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsService,
    private readonly pagination: Pagination,
  ) {}

  async list(
    scope: LedgerScope,
    endpointId: string,
    status: DeliveryStatus | undefined,
    page: PageRequest,
  ): Promise<ListPage<ReturnType<typeof presentWebhookDelivery>>> {
    await this.endpoints.get(scope, endpointId);
    const after = page.cursor === undefined ? undefined : this.pagination.decode(ORDER, scope, page.cursor);
    const rows = await this.deliveries.list(scope, endpointId, {
      status: status === 'failed' ? 'dead' : status,
      after,
      limit: page.limit + 1,
    });
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1];
    const next = rows.length > page.limit ? this.pagination.encode(ORDER, scope, { key: last.position, id: last.id }) : null;
    return new ListPage(
      data.map(({ position: _, ...row }) => presentWebhookDelivery(row)),
      next !== null,
      next,
    );
  }

  async get(scope: LedgerScope, id: string): Promise<WebhookDeliveryRecord> {
    const delivery = isUUID(id) ? await this.deliveries.find(scope, id) : null;
    if (!delivery) throw LedgerErrors.error('not_found', { message: `No webhook delivery ${id}` });
    return delivery;
  }

  async failedCount(scope: LedgerScope, endpointId: string, since: Date | undefined): Promise<number> {
    await this.endpoints.get(scope, endpointId);
    return this.deliveries.countDead(scope, endpointId, since ?? null);
  }

  /** A new delivery of the same event (same body, so the same event id) to the endpoint's current URL. */
  async redeliver(scope: LedgerScope, id: string): Promise<WebhookDeliveryRecord> {
    const original = await this.get(scope, id);
    const endpoint = await this.activeEndpoint(scope, original.webhookEndpointId);
    return this.deliveries.insert(scope, {
      id: randomUUID(),
      endpointId: endpoint.id,
      eventId: original.eventId,
      eventType: original.eventType,
      enqueueKind: 'redelivery',
      url: endpoint.url,
      body: original.requestBody,
      redeliversDeliveryId: original.id,
    });
  }

  /** Sends a synthetic event (not written to the events log) to check a receiver. */
  async testSend(
    scope: LedgerScope,
    endpointId: string,
    input: { eventType?: string; payload?: Record<string, unknown> },
  ): Promise<WebhookDeliveryRecord> {
    const endpoint = await this.activeEndpoint(scope, endpointId);
    const event = {
      id: randomUUID(),
      ledgerId: scope.ledgerId,
      mode: scope.mode,
      type: input.eventType ?? TEST_EVENT_TYPE,
      resourceId: null,
      data: input.payload ?? { ping: true, test: true },
      createdAt: new Date(),
    };
    return this.deliveries.insert(scope, {
      id: randomUUID(),
      endpointId: endpoint.id,
      eventId: event.id,
      eventType: event.type,
      enqueueKind: 'test_send',
      url: endpoint.url,
      body: JSON.stringify(presentEvent(event)),
      redeliversDeliveryId: null,
    });
  }

  private async activeEndpoint(scope: LedgerScope, id: string): Promise<WebhookEndpointRecord> {
    const endpoint = await this.endpoints.get(scope, id);
    if (!endpoint.active) throw WebhookErrors.error('webhook_endpoint_disabled');
    return endpoint;
  }
}
