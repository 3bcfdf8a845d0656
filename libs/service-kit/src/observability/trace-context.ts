import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { tracingActive } from './tracing';

/** W3C trace context headers (`traceparent`, `tracestate`) as the propagation API writes them. */
export type TraceCarrier = Record<string, string>;

/**
 * The active span's trace context, for work that continues later elsewhere (an outbox row, a
 * job); null when tracing is off or no span is active.
 */
export function currentTraceContext(): TraceCarrier | null {
  if (!tracingActive()) return null;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/** currentTraceContext as a jsonb query parameter, for the row that carries it to later work. */
export function traceContextParam(): string | null {
  const carrier = currentTraceContext();
  return carrier && JSON.stringify(carrier);
}

/** Adds the active trace context to outgoing headers (no-op when tracing is off). */
export function injectTraceHeaders(headers: Record<string, string>): void {
  if (tracingActive()) propagation.inject(context.active(), headers);
}

/**
 * Runs `work` in a span continuing the trace `carrier` came from (a new trace without one).
 * Without tracing it only runs `work`.
 */
export function runInContinuedTrace<T>(
  name: string,
  carrier: TraceCarrier | null | undefined,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracingActive()) return work();
  const parent = carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
  return trace.getTracer('bursar').startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
    try {
      return await work();
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** `trace_id` and `span_id` of the active span, for log lines. */
export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
