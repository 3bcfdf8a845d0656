import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WebhookEventRecord } from './webhook-event.record';
import { WebhookEventsRepository } from './webhook-events.repository';

@Injectable()
export class WebhookEventsService {
  constructor(private readonly events: WebhookEventsRepository) {}

  /**
   * Records a control webhook event (a type of reference s.12) inside the caller's transaction;
   * the relay turns it into deliveries for the workspace's matching endpoints after commit.
   */
  emit(manager: EntityManager, workspaceId: string, type: string, data: object): Promise<WebhookEventRecord> {
    return this.events.insert(manager, workspaceId, { type, data });
  }
}
