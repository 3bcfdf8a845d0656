import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import type { LogLevel } from '../config/common-settings';
import { traceLogFields } from './trace-context';
import { tracingActive } from './tracing';

/**
 * JSON logs on stdout; secrets never reach them because request bodies and auth headers are not
 * logged. With tracing on, each line carries the active span's `trace_id` and `span_id`; without
 * it no mixin runs per line.
 */
export function createLogger(service: string, level: LogLevel): Logger {
  return pino({
    level,
    base: { service },
    ...(tracingActive() ? { mixin: traceLogFields } : {}),
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true },
  });
}

/** Nest's own log lines (bootstrap, route mapping, errors) through the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  private write(level: 'info' | 'warn' | 'error' | 'debug' | 'trace', message: unknown, params: unknown[]): void {
    const context = typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : undefined;
    if (typeof message === 'object' && message !== null && !(message instanceof Error)) {
      const { msg, ...rest } = message as { msg?: string };
      this.logger[level]({ context, ...rest }, msg ?? (typeof params[0] === 'string' && params.length > 1 ? params[0] : ''));
      return;
    }
    if (message instanceof Error) {
      this.logger[level]({ context, err: message }, message.message);
      return;
    }
    const stack = level === 'error' && params.length > 1 ? params[0] : undefined;
    this.logger[level]({ context, ...(stack ? { stack } : {}) }, String(message));
  }

  log(message: unknown, ...params: unknown[]) {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]) {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.write('trace', message, params);
  }
}
