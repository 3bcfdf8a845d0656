/**
 * Whether this process traces, decided once, before the app's modules load. Reads OTEL_* straight
 * from the environment rather than through the typed settings: they are the OpenTelemetry SDK's
 * own standard configuration (the SDK reads the rest of them itself), and this runs before the
 * modules that settings loading pulls in, which instrumentation has to patch as they load.
 * With no endpoint set the SDK is not even loaded, so tracing costs nothing.
 */
let active = false;

export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

/**
 * Starts the SDK when an endpoint is configured; `serviceName` is used unless OTEL_SERVICE_NAME
 * says otherwise. Returns whether tracing is on. Call it from a module the main file imports
 * first (see each app's `tracing.ts`).
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (active || !tracingConfigured(env)) return active;
  // Loaded only now, so an untraced process never pays for the SDK.
  const { startTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  startTracingSdk(env.OTEL_SERVICE_NAME || serviceName);
  active = true;
  return active;
}

/** Whether spans are being recorded; callers skip all trace work when not. */
export function tracingActive(): boolean {
  return active;
}
