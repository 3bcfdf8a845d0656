import type { EntityManager } from 'typeorm';
import { isForeignKeyViolation } from '@bursar/service-kit';
import type { WebhookAttemptResult } from '../webhook-job';
import type { OutboxEventRow, UnpublishedDelivery, WebhookOutboxTables } from './webhook-outbox.tables';

/** A delivery with what its job needs: body, URL, sealed secrets, header brand, attempts made. */
const SELECT_TO_PUBLISH = `SELECT d.id, d.event_id AS "eventId", d.request_url AS url, d.request_body AS body,
    d.attempt AS "attemptsMade", w.id AS "endpointId", w.secret_sealed AS "secretSealed",
    w.previous_secret_sealed AS "previousSecretSealed", w.previous_secret_expires_at AS "previousSecretExpiresAt",
    w.header_brand AS "headerBrand", d.trace_context AS "traceContext"
  FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.webhook_endpoint_id`;

/** Headers whose values never reach the delivery log. */
const REDACTED = /authorization|cookie|secret|token/i;

function redact(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, REDACTED.test(k) ? '[redacted]' : v]));
}

/**
 * The outbox SQL both services share. Its methods span tenants on purpose: the relay and the
 * results consumer work for the whole service, keyed by event and delivery ids that only the
 * service itself (and the worker it trusts) hands them.
 */
export class WebhookOutboxRepository {
  constructor(private readonly tables: WebhookOutboxTables) {}

  /**
   * Turns up to `limit` committed, unrelayed events into pending deliveries for every active
   * endpoint of their tenant that subscribes to their type, and marks them relayed. Rows locked by
   * another replica are skipped, so replicas share the backlog. Returns the events handled.
   */
  async fanOutEvents(manager: EntityManager, limit: number): Promise<number> {
    const { eventsTable, tenantColumns, extraEventColumns } = this.tables;
    const columns = ['id', 'type', 'created_at', 'data', ...extraEventColumns].join(', ');
    const events: OutboxEventRow[] = await manager.query(
      `SELECT ${columns} FROM ${eventsTable} WHERE relayed_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    if (events.length === 0) return 0;
    const bodies = events.map((row) => ({ event_id: row.id, body: this.tables.presentEvent(row) }));
    const tenantJoin = tenantColumns.map((c) => `w.${c} = e.${c}`).join(' AND ');
    await manager.query(
      `INSERT INTO webhook_deliveries
         (id, ${tenantColumns.join(', ')}, webhook_endpoint_id, event_id, event_type, enqueue_kind, request_url, request_body, trace_context)
       SELECT gen_random_uuid(), ${tenantColumns.map((c) => `e.${c}`).join(', ')}, w.id, e.id, e.type, 'event', w.url, x.body,
         e.trace_context
       FROM jsonb_to_recordset($1::jsonb) AS x(event_id uuid, body text)
       JOIN ${eventsTable} e ON e.id = x.event_id
       JOIN webhook_endpoints w ON ${tenantJoin} AND w.active AND w.deleted_at IS NULL
         AND (cardinality(w.enabled_events) = 0 OR e.type = ANY (w.enabled_events) OR '*' = ANY (w.enabled_events)
              OR split_part(e.type, '.', 1) || '.*' = ANY (w.enabled_events))
       ORDER BY e.seq`,
      [JSON.stringify(bodies)],
    );
    await manager.query(`UPDATE ${eventsTable} SET relayed_at = now() WHERE id = ANY ($1::uuid[])`, [events.map((e) => e.id)]);
    return events.length;
  }

  /**
   * Gives up the pending deliveries of a deleted endpoint, within its tenant (`tenant` maps the
   * tenant columns to values); returns their ids so their queued jobs can be removed.
   */
  async abandonPending(manager: EntityManager, tenant: Record<string, string>, endpointId: string): Promise<string[]> {
    const columns = this.tables.tenantColumns;
    const rows: { id: string }[] = await manager.query(
      `UPDATE webhook_deliveries SET status = 'dead', error_message = 'endpoint deleted', next_attempt_at = NULL,
         completed_at = now(), updated_at = now()
       WHERE webhook_endpoint_id = $1 AND status = 'pending' AND ${columns.map((c, i) => `${c} = $${i + 2}`).join(' AND ')}
       RETURNING id`,
      [endpointId, ...columns.map((c) => tenant[c])],
    );
    return rows.map((r) => r.id);
  }

  /** Pending deliveries not yet handed to the queue, locked until the caller's transaction ends. */
  lockUnpublished(manager: EntityManager, limit: number): Promise<UnpublishedDelivery[]> {
    return manager.query(
      `${SELECT_TO_PUBLISH} WHERE d.published_at IS NULL AND d.status = 'pending'
       ORDER BY d.created_at LIMIT $1 FOR UPDATE OF d SKIP LOCKED`,
      [limit],
    );
  }

  /**
   * Pending deliveries published over `staleMs` ago whose next attempt is over `staleMs` late: their
   * job is presumably gone (Redis lost its data, say). Publishing them again is harmless when it is
   * not: the job id is the delivery id, so a job still queued is not duplicated.
   */
  lockStale(manager: EntityManager, staleMs: number, limit: number): Promise<UnpublishedDelivery[]> {
    return manager.query(
      `${SELECT_TO_PUBLISH} WHERE d.status = 'pending' AND d.published_at < now() - $2 * interval '1 millisecond'
         AND COALESCE(d.next_attempt_at, d.published_at) < now() - $2 * interval '1 millisecond'
       ORDER BY d.published_at LIMIT $1 FOR UPDATE OF d SKIP LOCKED`,
      [limit, staleMs],
    );
  }

  /**
   * Seconds the oldest waiting row of each outbox stage has waited (0 when none): events not yet
   * fanned out, pending deliveries not yet handed to the queue. Each is one row off a partial index.
   */
  async lag(manager: EntityManager): Promise<{ events: number; deliveries: number }> {
    const [row] = await manager.query(
      `SELECT coalesce(extract(epoch FROM now() - (SELECT created_at FROM ${this.tables.eventsTable}
                 WHERE relayed_at IS NULL ORDER BY seq LIMIT 1)), 0)::float8 AS events,
              coalesce(extract(epoch FROM now() - (SELECT created_at FROM webhook_deliveries
                 WHERE published_at IS NULL AND status = 'pending' ORDER BY created_at LIMIT 1)), 0)::float8 AS deliveries`,
    );
    return { events: Math.max(0, row.events), deliveries: Math.max(0, row.deliveries) };
  }

  async markPublished(manager: EntityManager, published: { id: string; headers: Record<string, string> }[]): Promise<void> {
    await manager.query(
      `UPDATE webhook_deliveries d SET published_at = now(), request_headers = x.headers, updated_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, headers jsonb) WHERE d.id = x.id`,
      [JSON.stringify(published)],
    );
  }

  /**
   * Records one attempt and moves its delivery on, in one statement (one round trip per result).
   * Idempotent by attempt id; a finished delivery (succeeded, dead, abandoned) stays as it is
   * whatever arrives after, and a late report of an earlier attempt never undoes a later one.
   * Returns false when the delivery row is not visible yet (its transaction has not committed).
   */
  async recordResult(manager: EntityManager, r: WebhookAttemptResult): Promise<boolean> {
    const respondedAt = r.startedAt + r.durationMs;
    try {
      await manager.query(
        `WITH attempt AS (
           INSERT INTO webhook_delivery_attempts
             (id, delivery_id, attempt, outcome, response_status, error_message, duration_ms, started_at)
           VALUES ($12, $1, $2, CASE WHEN $3 THEN 'succeeded' ELSE 'failed' END, $6, $11, $13, to_timestamp($14 / 1000.0))
           ON CONFLICT (id) DO NOTHING RETURNING delivery_id
         ), delivery AS (
           UPDATE webhook_deliveries d SET
             attempt = GREATEST(d.attempt, $2),
             status = CASE WHEN $3 THEN 'succeeded' WHEN $4 THEN 'dead' ELSE 'pending' END,
             request_headers = $5, response_status = $6, response_headers = $7, response_body = $8,
             response_at = CASE WHEN $6::int IS NULL THEN d.response_at ELSE to_timestamp($9 / 1000.0) END,
             next_attempt_at = CASE WHEN $4 THEN NULL ELSE to_timestamp($10 / 1000.0) END,
             error_message = $11,
             completed_at = CASE WHEN $4 THEN now() ELSE NULL END,
             updated_at = now()
           FROM attempt WHERE d.id = attempt.delivery_id AND d.status = 'pending' AND d.attempt <= $2
           RETURNING d.webhook_endpoint_id
         )
         -- To the second: a busy endpoint's row is not rewritten (and locked) by every success.
         UPDATE webhook_endpoints w SET last_delivered_at = to_timestamp($9 / 1000.0)
         FROM delivery WHERE $3 AND w.id = delivery.webhook_endpoint_id
           AND (w.last_delivered_at IS NULL OR w.last_delivered_at < to_timestamp($9 / 1000.0) - interval '1 second')`,
        [
          r.deliveryId, r.attempt, r.outcome === 'succeeded', r.final, JSON.stringify(redact(r.requestHeaders)),
          r.responseStatus, r.responseHeaders && JSON.stringify(r.responseHeaders), r.responseBody, respondedAt,
          r.nextAttemptAt, r.error, r.attemptId, r.durationMs, r.startedAt,
        ],
      );
      return true;
    } catch (err) {
      // The attempt's foreign key: no such delivery (yet).
      if (isForeignKeyViolation(err)) return false;
      throw err;
    }
  }
}
