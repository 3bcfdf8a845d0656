import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SecretBox } from '@bursar/crypto';
import {
  checkEndpointUrl, ENDPOINT_URL_PROBLEMS, newSigningSecret, SECRET_OVERLAP_MS, sealEndpointSecret, WebhookDeliveryRecord,
  WebhookDispatcher,
} from '@bursar/queue';
import { notFound, unprocessable } from '../common/control-errors';
import { ListQueryDto, Page } from '../common/pagination';
import { ControlSettings } from '../config/control.settings';
import { CreateControlWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { ControlWebhookEndpoint } from './webhook-endpoint.record';
import { ControlWebhookEndpointsRepository, KeysetPage } from './webhook-endpoints.repository';
import { CONTROL_WEBHOOK_EVENTS } from './webhook-event-types';

const SECRET_PREFIX = 'whsec_';
const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Control's list rules (reference s.10) for these raw-SQL lists: `limit` clamped to 1..200
 * (default 50), a `starting_after` that is no id restarts at the first page, and a full page
 * reports `has_more` even when it is the last one.
 */
async function keysetPage<T extends { id: string }>(query: ListQueryDto, fetch: (page: KeysetPage) => Promise<T[]>): Promise<Page<T>> {
  const limit = Math.min(Math.max(query.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
  const startingAfter = UUID.test(query.starting_after ?? '') ? query.starting_after : undefined;
  const data = await fetch({ startingAfter, limit });
  const hasMore = data.length === limit;
  return { data, has_more: hasMore, next_cursor: hasMore ? data[data.length - 1].id : null };
}

export interface ControlEndpointWithSecret {
  endpoint: ControlWebhookEndpoint;
  secret: string;
}

@Injectable()
export class ControlWebhookEndpointsService {
  private readonly box: SecretBox;

  constructor(
    private readonly endpoints: ControlWebhookEndpointsRepository,
    private readonly dispatch: WebhookDispatcher,
    private readonly settings: ControlSettings,
  ) {
    this.box = settings.rootKeys.sealedRows();
  }

  async create(workspaceId: string, dto: CreateControlWebhookEndpointDto): Promise<ControlEndpointWithSecret> {
    const unknown = (dto.enabled_events ?? []).filter((e) => !(CONTROL_WEBHOOK_EVENTS as readonly string[]).includes(e));
    if (unknown.length > 0) throw unprocessable(`Unknown event type(s): ${unknown.join(', ')}`);
    const problem = await checkEndpointUrl(dto.url, this.settings.WEBHOOK_ALLOW_PRIVATE_URLS);
    if (problem) throw unprocessable(ENDPOINT_URL_PROBLEMS[problem]);
    const id = randomUUID();
    const secret = newSigningSecret(SECRET_PREFIX);
    const endpoint = await this.endpoints.insert(workspaceId, {
      id,
      url: dto.url,
      description: dto.description ?? null,
      enabledEvents: [...new Set(dto.enabled_events ?? [])],
      active: (dto.status ?? 'active') === 'active',
      headerBrand: dto.header_brand ?? null,
      secretSealed: sealEndpointSecret(this.box, id, secret),
    });
    return { endpoint, secret };
  }

  /** The workspace's endpoints a page at a time, newest first. */
  list(workspaceId: string, query: ListQueryDto): Promise<Page<ControlWebhookEndpoint>> {
    return keysetPage(query, (page) => this.endpoints.list(workspaceId, page));
  }

  async get(workspaceId: string, id: string): Promise<ControlWebhookEndpoint> {
    const endpoint = await this.endpoints.find(workspaceId, id);
    if (!endpoint) throw notFound('webhook endpoint');
    return endpoint;
  }

  /** Deletes the endpoint and gives up its pending deliveries. */
  async remove(workspaceId: string, id: string): Promise<void> {
    if (!(await this.endpoints.markDeleted(workspaceId, id))) throw notFound('webhook endpoint');
    await this.dispatch.abandonEndpoint({ workspace_id: workspaceId }, id);
  }

  /** A new secret; deliveries carry a v1 for the new and the previous one for 24 hours. */
  async rotate(workspaceId: string, id: string, now: Date): Promise<ControlEndpointWithSecret> {
    const secret = newSigningSecret(SECRET_PREFIX);
    const endpoint = await this.endpoints.replaceSecret(
      workspaceId,
      id,
      sealEndpointSecret(this.box, id, secret),
      new Date(now.getTime() + SECRET_OVERLAP_MS),
    );
    if (!endpoint) throw notFound('webhook endpoint');
    return { endpoint, secret };
  }

  /** Deliveries of one endpoint, newest first. */
  async deliveries(workspaceId: string, id: string, query: ListQueryDto): Promise<Page<WebhookDeliveryRecord>> {
    await this.get(workspaceId, id);
    return keysetPage(query, (page) => this.endpoints.listDeliveries(workspaceId, id, page));
  }
}
