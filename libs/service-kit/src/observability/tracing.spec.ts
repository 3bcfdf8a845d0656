import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { trace } from '@opentelemetry/api';

type TracingModule = typeof import('./tracing');

/** A fresh copy of the tracing module, with the SDK module replaced by a spy. */
function loadTracing(): { tracing: TracingModule; sdkStarted: jest.Mock } {
  const sdkStarted = jest.fn();
  jest.resetModules();
  jest.doMock('./tracing-sdk', () => {
    sdkStarted.mockName('loaded');
    return { startTracingSdk: sdkStarted };
  });
  return { tracing: jest.requireActual('./tracing'), sdkStarted };
}

describe('tracing bootstrap', () => {
  afterEach(() => jest.dontMock('./tracing-sdk'));

  it('stays off without an OTLP endpoint: the SDK is never loaded and no tracer provider is registered', () => {
    const { tracing, sdkStarted } = loadTracing();
    expect(tracing.startTracing('control', { OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBe(false);
    expect(tracing.tracingActive()).toBe(false);
    expect(sdkStarted.getMockName()).not.toBe('loaded');

    // The real SDK behind the real bootstrap: nothing registers a tracer provider.
    jest.resetModules();
    jest.dontMock('./tracing-sdk');
    expect(jest.requireActual<TracingModule>('./tracing').startTracing('control', {})).toBe(false);
    const span = trace.getTracer('probe').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(span.spanContext())).toBe(false);
  });

  it('stays off when OTEL_SDK_DISABLED is true, even with an endpoint', () => {
    const { tracing, sdkStarted } = loadTracing();
    expect(tracing.startTracing('control', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(sdkStarted).not.toHaveBeenCalled();
  });

  it('starts once with an endpoint, named by OTEL_SERVICE_NAME or else the default', () => {
    const first = loadTracing();
    expect(first.tracing.startTracing('ledger', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(first.tracing.startTracing('ledger', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(first.sdkStarted.mock.calls).toEqual([['ledger']]);
    expect(first.tracing.tracingActive()).toBe(true);

    const named = loadTracing();
    named.tracing.startTracing('ledger', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SERVICE_NAME: 'ledger-eu' });
    expect(named.sdkStarted.mock.calls).toEqual([['ledger-eu']]);
  });

  it("loads no OpenTelemetry module in a service process without an endpoint, and the SDK's with one", () => {
    const root = path.resolve(__dirname, '../../../..');
    // Named by path: an import of @bursar/testing would make the libraries depend on each other.
    const swcRegister = path.join(root, 'libs/testing/src/swc-register.js');
    const bootstrap = path.join(root, 'apps/webhook-worker/src/tracing.ts');
    const loaded = (env: Record<string, string>) =>
      Number(
        execFileSync(process.execPath, ['-r', swcRegister, '-e', `require(${JSON.stringify(bootstrap)});
          console.log(Object.keys(require.cache).filter((m) => m.includes('@opentelemetry')).length); process.exit(0);`], {
          env: { PATH: process.env.PATH, ...env },
        }).toString(),
      );
    expect(loaded({})).toBe(0);
    expect(loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toBeGreaterThan(0);
  });
});
