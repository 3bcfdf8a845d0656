import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** One registry per process (or per in-process app in tests), with the HTTP duration histogram. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route template and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** One child per label set: observing through it skips hashing the labels on every request. */
  private readonly children = new Map<string, { observe(seconds: number): void }>();

  /** Express middleware timing each request; the route label is the matched template, never the raw path. */
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.once('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      const status = String(res.statusCode);
      const key = `${req.method} ${route} ${status}`;
      let child = this.children.get(key);
      if (!child) {
        child = this.httpDuration.labels({ method: req.method, route, status_code: status });
        this.children.set(key, child);
      }
      child.observe((performance.now() - started) / 1000);
    });
    next();
  };
}
