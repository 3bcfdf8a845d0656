import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SecretBox } from '@bursar/crypto';
import { newSigningSecret, sealEndpointSecret, SECRET_OVERLAP_MS, WebhookDispatcher } from '@bursar/queue';
import { LedgerSettings } from '../config/ledger.settings';
import { LedgerErrors } from '../common/ledger-errors';
import { LedgerScope } from '../common/mode';
import { EventsService } from '../events/events.service';
import { presentWebhookEndpoint, WebhookEndpointRecord } from './webhook-endpoint.record';
import { EndpointChanges, WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookErrors } from './webhook-errors';
import { assertDeliverableUrl } from './webhook-url';

export interface EndpointWithSecret {
  endpoint: WebhookEndpointRecord;
  secret: string;
}

@Injectable()
export class WebhookEndpointsService {
  private readonly box: SecretBox;

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly dispatch: WebhookDispatcher,
    private readonly events: EventsService,
    private readonly settings: LedgerSettings,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.box = settings.rootKeys.sealedRows();
  }

  async create(
    scope: LedgerScope,
    input: { url: string; description?: string | null; enabledEvents?: string[]; headerBrand?: string | null },
  ): Promise<EndpointWithSecret> {
    await assertDeliverableUrl(input.url, this.settings.WEBHOOK_ALLOW_PRIVATE_URLS);
    const id = randomUUID();
    const secret = this.newSecret(scope);
    const endpoint = await this.endpoints.insert(scope, {
      id,
      url: input.url,
      description: input.description ?? null,
      enabledEvents: input.enabledEvents ?? [],
      headerBrand: input.headerBrand ?? null,
      secretSealed: sealEndpointSecret(this.box, id, secret),
    });
    return { endpoint, secret };
  }

  list(scope: LedgerScope): Promise<WebhookEndpointRecord[]> {
    return this.endpoints.list(scope);
  }

  async get(scope: LedgerScope, id: string): Promise<WebhookEndpointRecord> {
    const endpoint = isUUID(id) ? await this.endpoints.find(scope, id) : null;
    if (!endpoint) throw LedgerErrors.error('not_found', { message: `No webhook endpoint ${id}` });
    return endpoint;
  }

  async update(scope: LedgerScope, id: string, changes: EndpointChanges): Promise<WebhookEndpointRecord> {
    await this.get(scope, id);
    if (changes.url !== undefined) await assertDeliverableUrl(changes.url, this.settings.WEBHOOK_ALLOW_PRIVATE_URLS);
    const updated = await this.endpoints.update(scope, id, changes);
    if (!updated) throw LedgerErrors.error('not_found', { message: `No webhook endpoint ${id}` });
    return updated;
  }

  /** Deletes the endpoint and gives up its pending deliveries, so nothing more is sent to it. */
  async remove(scope: LedgerScope, id: string): Promise<void> {
    if (!isUUID(id) || !(await this.endpoints.softDelete(scope, id))) {
      throw LedgerErrors.error('not_found', { message: `No webhook endpoint ${id}` });
    }
    await this.dispatch.abandonEndpoint({ organization_id: scope.organizationId, ledger_id: scope.ledgerId, mode: scope.mode }, id);
  }

  /** A new secret; the old one keeps signing (as a second v1) for 24 hours. 409 inside that window. */
  async rotateSecret(scope: LedgerScope, id: string, now: Date): Promise<EndpointWithSecret> {
    await this.get(scope, id);
    const secret = this.newSecret(scope);
    const endpoint = await this.dataSource.transaction(async (manager) => {
      const rotated = await this.endpoints.rotateSecret(manager, scope, id, {
        secretSealed: sealEndpointSecret(this.box, id, secret),
        now,
        previousExpiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS),
      });
      if (rotated) await this.events.record(manager, scope, 'webhook_endpoint.secret_rotated', id, presentWebhookEndpoint(rotated));
      return rotated;
    });
    if (!endpoint) {
      throw WebhookErrors.error('rotation_in_progress', { hint: 'Wait until previous_secret_expires_at before rotating again' });
    }
    return { endpoint, secret };
  }

  private newSecret(scope: LedgerScope): string {
    return newSigningSecret(`whsec_${scope.mode}_`);
  }
}
