import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';

/** Probes would fill the trace store with one-span traces. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The OpenTelemetry SDK for traces, configured by the standard OTEL_* variables (exporter endpoint
 * and protocol, sampler, batch delays). Only ever required by startTracing.
 */
export function startTracingSdk(serviceName: string): void {
  // NestJS 12 is ESM and imports express as ESM does: only the import hook lets the instrumentation patch it.
  register('@opentelemetry/instrumentation/hook.mjs', pathToFileURL(__filename));
  const sdk = new NodeSDK({
    serviceName,
    // Traces only: metrics stay on /metrics for Prometheus, logs on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]) }),
      new ExpressInstrumentation(),
      // Outside a request or a delivery the queries and commands are the relay's and the queue's
      // polling: as root spans they would bury the traces that matter.
      new PgInstrumentation({ requireParentSpan: true }),
      // The command name only: queue commands carry webhook bodies and signatures as arguments.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  // Best effort: flush what is buffered while the service shuts down.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void sdk.shutdown().catch(() => undefined));
}
