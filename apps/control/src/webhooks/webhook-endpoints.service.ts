import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SecretBox } from '@bursar/crypto';
import { checkEndpointUrl, ENDPOINT_URL_PROBLEMS, newSigningSecret, sealEndpointSecret, WebhookDispatcher } from '@bursar/queue';
import { notFound, unprocessable } from '../common/control-errors';
import { ControlSettings } from '../config/control.settings';
import { CreateControlWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { ControlWebhookEndpoint } from './webhook-endpoint.record';
import { ControlWebhookEndpointsRepository } from './webhook-endpoints.repository';
import { CONTROL_WEBHOOK_EVENTS } from './webhook-event-types';

/** How long a rotated-out secret keeps signing deliveries beside the new one (decisions.md). */
const SECRET_OVERLAP_MS = 24 * 3_600_000;
const SECRET_PREFIX = 'whsec_';

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
    this.box = SecretBox.fromBase64(settings.CONTROL_SECRET_KEY);
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
      secretSealed: sealEndpointSecret(this.box, id, secret),
    });
    return { endpoint, secret };
  }

  list(workspaceId: string): Promise<ControlWebhookEndpoint[]> {
    return this.endpoints.list(workspaceId);
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
}
