/**
 * DDL of the shared webhook layout (see WebhookOutboxTables), for each service's migration.
 * `tenantColumnsDdl` declares the tenant columns; `endpointTenantKey` is a composite foreign key
 * clause tying endpoints to their tenant. Applied migrations depend on it: change the layout
 * through new migrations, never by editing this.
 */
export function webhookTablesDdl(tenant: { columnsDdl: string; columns: string[]; endpointTenantKey: string }): string[] {
  const cols = tenant.columns.join(', ');
  return [
    `CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      ${tenant.columnsDdl},
      url text NOT NULL CHECK (length(url) <= 2048),
      description text CHECK (length(description) <= 1000),
      enabled_events text[] NOT NULL DEFAULT '{}',
      active boolean NOT NULL DEFAULT true,
      -- Signing secrets, sealed with the service's secret key; never stored in clear.
      secret_sealed text NOT NULL,
      previous_secret_sealed text,
      previous_secret_expires_at timestamptz,
      last_delivered_at timestamptz,
      deleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      ${tenant.endpointTenantKey},
      UNIQUE (id, ${cols}),
      CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL))
    )`,
    `CREATE INDEX webhook_endpoints_tenant_idx ON webhook_endpoints (${cols}, created_at) WHERE deleted_at IS NULL`,
    `CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      ${tenant.columnsDdl},
      webhook_endpoint_id uuid NOT NULL,
      event_id uuid NOT NULL,
      event_type text NOT NULL,
      enqueue_kind text NOT NULL CHECK (enqueue_kind IN ('event', 'redelivery', 'test_send')),
      -- dead: every attempt failed (shown as failed).
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'dead')),
      attempt integer NOT NULL DEFAULT 0,
      request_url text NOT NULL,
      request_headers jsonb NOT NULL DEFAULT '{}',
      request_body text NOT NULL,
      response_status integer,
      response_headers jsonb,
      response_body text,
      response_at timestamptz,
      next_attempt_at timestamptz,
      error_message text,
      redelivers_delivery_id uuid REFERENCES webhook_deliveries (id),
      published_at timestamptz,
      completed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      FOREIGN KEY (webhook_endpoint_id, ${cols}) REFERENCES webhook_endpoints (id, ${cols})
    )`,
    `CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (webhook_endpoint_id, created_at DESC, id DESC)`,
    `CREATE INDEX webhook_deliveries_dead_idx ON webhook_deliveries (webhook_endpoint_id, completed_at) WHERE status = 'dead'`,
    // Keeps the publisher's scan proportional to what is waiting.
    `CREATE INDEX webhook_deliveries_unpublished_idx ON webhook_deliveries (created_at) WHERE published_at IS NULL`,
    // And the sweep's, for jobs lost from Redis.
    `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (published_at) WHERE status = 'pending'`,
    `CREATE TABLE webhook_delivery_attempts (
      -- The worker's id for the attempt, so a result reported twice is recorded once.
      id uuid PRIMARY KEY,
      delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id),
      attempt integer NOT NULL CHECK (attempt >= 1),
      outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
      response_status integer,
      error_message text,
      duration_ms integer NOT NULL,
      started_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`,
    `CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, started_at)`,
  ];
}

/**
 * Trace context (W3C `traceparent`/`tracestate`, as jsonb) on the events table and on deliveries:
 * written with the change an event reports, copied to its deliveries, carried by their jobs, so a
 * delivery continues the trace of the request that caused it. Null when tracing is off.
 */
export function traceContextColumnsDdl(eventsTable: string): { up: string[]; down: string[] } {
  return {
    up: [`ALTER TABLE ${eventsTable} ADD COLUMN trace_context jsonb`, `ALTER TABLE webhook_deliveries ADD COLUMN trace_context jsonb`],
    down: [`ALTER TABLE webhook_deliveries DROP COLUMN trace_context`, `ALTER TABLE ${eventsTable} DROP COLUMN trace_context`],
  };
}

export const WEBHOOK_TABLES_DROP = ['DROP TABLE webhook_delivery_attempts', 'DROP TABLE webhook_deliveries', 'DROP TABLE webhook_endpoints'];
