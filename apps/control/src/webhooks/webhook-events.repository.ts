import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { traceContextParam } from '@bursar/service-kit';
import { WEBHOOK_EVENT_COLUMNS, WebhookEventRecord } from './webhook-event.record';

@Injectable()
export class WebhookEventsRepository {
  /** Runs on the caller's manager so the event commits (or not) with the change it reports. */
  async insert(
    manager: EntityManager,
    workspaceId: string,
    event: { type: string; data: object },
  ): Promise<WebhookEventRecord> {
    const rows: WebhookEventRecord[] = await manager.query(
      `INSERT INTO webhook_events (workspace_id, type, data, trace_context) VALUES ($1, $2, $3, $4) RETURNING ${WEBHOOK_EVENT_COLUMNS}`,
      [workspaceId, event.type, JSON.stringify(event.data), traceContextParam()],
    );
    return rows[0];
  }
}
