import { BeforeApplicationShutdown, Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from 'express';
import { READINESS_CHECKS, ReadinessCheck, withTimeout } from './readiness-check';

const PROBE_TIMEOUT_MS = 1500;

@ApiExcludeController()
@Controller()
export class HealthController implements BeforeApplicationShutdown {
  private shuttingDown = false;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
  ) {}

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
        return session.up();
      } catch (err) {
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
