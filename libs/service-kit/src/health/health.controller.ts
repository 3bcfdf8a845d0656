import { BeforeApplicationShutdown, Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from 'express';
import { Gauge } from 'prom-client';
import { MetricsService } from '../observability/metrics.service';
import { READINESS_CHECKS, ReadinessCheck, withTimeout } from './readiness-check';

const PROBE_TIMEOUT_MS = 1500;

@ApiExcludeController()
@Controller()
export class HealthController implements BeforeApplicationShutdown {
  private shuttingDown = false;
  /** Each dependency's last probe, so an alert can tell which one kept the process out of rotation. */
  private readonly dependencyUp: Gauge<'dependency'>;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    metrics: MetricsService,
  ) {
    this.dependencyUp = new Gauge({
      name: 'readiness_dependency_up',
      help: 'Result of the last /readyz probe of each dependency: 1 reachable, 0 down (the process then answers 503)',
      labelNames: ['dependency'],
      registers: [metrics.registry],
    });
  }

  /** Liveness: the event loop answers. Dependencies are readiness's business. */
  @Get('healthz')
  alive() {
    return { status: 'ok' };
  }

  /** Readiness: 503 while any dependency is down or once shutdown has begun, so traffic drains away. */
  @Get('readyz')
  async ready(@Res() res: Response): Promise<void> {
    const indicators = this.checks.map((check) => async () => {
      const session = this.indicators.check(check.name);
      try {
        await withTimeout(check.probe(), PROBE_TIMEOUT_MS, check.name);
        this.dependencyUp.set({ dependency: check.name }, 1);
        return session.up();
      } catch (err) {
        this.dependencyUp.set({ dependency: check.name }, 0);
        return session.down({ message: err instanceof Error ? err.message : String(err) });
      }
    });
    try {
      const result = await this.health.check(indicators);
      if (this.shuttingDown) {
        res.status(HttpStatus.SERVICE_UNAVAILABLE).json({ ...result, status: 'shutting_down' });
        return;
      }
      res.status(HttpStatus.OK).json(result);
    } catch (err) {
      const body = (err as { getResponse?: () => unknown }).getResponse?.() ?? { status: 'error' };
      res.status(HttpStatus.SERVICE_UNAVAILABLE).json(body);
    }
  }

  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
  }
}
