/** One control webhook event row. */
export interface WebhookEventRecord {
  id: string;
  seq: string;
  workspaceId: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

export const WEBHOOK_EVENT_COLUMNS = `id, seq::text AS seq, workspace_id AS "workspaceId", type, data, created_at AS "createdAt"`;

/** Delivery body per the reference: `{id, type, created_at, data}`. */
export function presentWebhookEvent(event: Pick<WebhookEventRecord, 'id' | 'type' | 'createdAt' | 'data'>) {
  return { id: event.id, type: event.type, created_at: event.createdAt.toISOString(), data: event.data };
}
